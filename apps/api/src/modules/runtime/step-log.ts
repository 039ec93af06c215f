/**
 * The checkpoints of one turn (docs/decisions/runtime.md, "Durable runs"): every completed step — a node
 * entered, a model response (before its tools run), a tool result, a stage move — is recorded through the
 * `checkpoint` port as it completes. A resumed turn gets the recorded steps back and runs the same code
 * again: while steps remain, each one is *replayed* (the model is not called, the tool is not run, the
 * stage is not saved again; their events were stored before the crash and are muted), and once they are
 * used up the turn goes on live from where it stopped. The walk and each agent's message list are thus
 * rebuilt by the code that built them, not by a second interpreter of the log.
 */
import type { ToolCall } from './providers/provider';
import type { FileChangeInfo, Usage } from './runtime.types';
import { TurnFailure } from './turn-outcome';

export interface ToolStepOutcome {
  ok: boolean;
  output: string;
  error?: string;
  files?: FileChangeInfo[];
}

export type Step =
  /** the walk entered this node (its `node started` event is stored with the step) */
  | { step: 'node'; node_key: string }
  /** one model call finished: its text and the tool calls it asked for, before any of them ran */
  | { step: 'model'; text: string; tool_calls: ToolCall[]; usage: Usage }
  /** one tool call finished; `wrote` = workspace paths it wrote (so the artifact rule still holds) */
  | { step: 'tool'; call_id: string; outcome: ToolStepOutcome; wrote?: string[] }
  /** the project moved to another stage (already saved) */
  | { step: 'stage'; to: string }
  /** the user's decision on a call that requires approval (stored by the approval endpoint, not the turn) */
  | {
      step: 'decision';
      call_id: string;
      decision: 'approve' | 'reject' | 'edit';
      reason?: string;
      arguments?: unknown;
    };

export type StepKind = Step['step'];
export type StepOf<K extends StepKind> = Extract<Step, { step: K }>;

/**
 * Records one step (in the chat layer, with the run events before it); never rejects. `now`: the turn
 * waits for it, so it is stored at once (with any steps held before it); otherwise the writer may hold
 * it briefly and store it with the next write — or, when the turn ends first, not at all (an ended run
 * needs no checkpoints: run-hub.ts, `checkpoint`).
 */
export type CheckpointWriter = (step: Step, now: boolean) => Promise<void>;

export class StepLog {
  private cursor = 0;

  constructor(
    private readonly recorded: readonly Step[] = [],
    private readonly writer?: CheckpointWriter,
    /** this turn is a resume: a write that is not recorded may still have landed before the crash */
    readonly resumed = false,
  ) {}

  /** True while recorded steps remain: the turn is re-running what it already did, muted. */
  get replaying(): boolean {
    return this.cursor < this.recorded.length;
  }

  /** Ends the replay early (the turn failed or ended before using every step): its last events are live. */
  stopReplay(): void {
    this.cursor = this.recorded.length;
  }

  /** The recorded result of the step about to complete, when it is of this kind (replaying only). */
  peek<K extends StepKind>(kind: K): StepOf<K> | null {
    const s = this.recorded[this.cursor];
    return s && s.step === kind ? (s as StepOf<K>) : null;
  }

  /**
   * The step has completed: replaying, it is checked against the recorded one and passed; live, it is
   * recorded. A recorded step that does not match (the pack changed under the run) fails the resume.
   *
   * Only a model response that asks for tools is waited for: its tools must not run before it is stored
   * (a write's idempotency key names its place in that response). Every other step is recorded in the
   * background (the writer keeps the order, may hold it until its next write, and never rejects): lost
   * in a crash, it is redone safely — a tool again (its write found by its key), a model call again, a
   * node or stage move derived again.
   */
  async complete(step: Step): Promise<void> {
    if (this.replaying) {
      const r = this.recorded[this.cursor];
      if (r.step !== step.step || key(r) !== key(step))
        throw new TurnFailure(
          'resume_failed',
          `The run cannot be resumed: its recorded step ${this.cursor + 1} (${describe(r)}) no longer matches the pack (${describe(step)}).`,
        );
      this.cursor++;
      return;
    }
    const now = step.step === 'model' && step.tool_calls.length > 0;
    const stored = this.writer?.(step, now);
    if (now) await stored;
  }
}

function key(s: Step): string {
  if (s.step === 'tool' || s.step === 'decision') return s.call_id;
  return s.step === 'node' ? s.node_key : s.step === 'stage' ? s.to : '';
}

function describe(s: Step): string {
  const k = key(s);
  return k ? `${s.step} ${k}` : s.step;
}
