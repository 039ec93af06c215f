/** What starts a turn and what a started turn gives back (chat.service.ts carries it out). */
import type { Project } from '../projects/project.entity';
import type { ChatMessage } from '../runtime/providers/provider';
import type { AwaitingGate, PackSnapshot, TurnPorts, TurnResult } from '../runtime/runtime.types';
import type { Step } from '../runtime/step-log';

export interface TurnInput {
  message?: string;
  project_slug?: string;
  domain?: string;
  stage?: string;
  pack_id?: number;
  advance?: boolean;
  node_key?: string;
  /** `enqueue`: wait for a turn still running on the project instead of 409 (run-admission.ts) */
  multitask?: 'reject' | 'enqueue';
}

/** A turn to carry out: a new one, or a resumed one (run-recovery.service.ts) with its recorded steps. */
export interface TurnLaunch {
  runId: string;
  ownerId: number | null;
  project: Project | null;
  pack: PackSnapshot;
  ports: TurnPorts;
  history: ChatMessage[];
  input: TurnInput;
  message: string;
  /** the project's stage and gate when the turn started */
  stage: string;
  awaitingGate: AwaitingGate | null;
  /** cluster mode: the worker carrying the turn (its final write applies only while it still holds the run) */
  workerId?: string;
  /** cluster mode: the seq the turn's events follow (its `queued` status event) */
  startAfter?: number;
  resume?: {
    steps: Step[];
    /** the resumed run numbers its events after this seq (the last stored one, plus the gap) */
    seq: number;
    /** the last stored event */
    stored: number;
    /** the last event its last checkpoint covered: later ones were superseded (the client drops them) */
    checkpointSeq: number;
    attempt: number;
  };
}

/**
 * Cluster mode: why a worker stops carrying a run without ending it — `requeue` on a shutdown (another
 * worker takes it at once), not when its lease was lost (another worker has it already).
 */
export interface HandBack {
  code: 'handback';
  requeue: boolean;
}

export function handedBack(signal: AbortSignal | undefined): HandBack | null {
  const reason = signal?.aborted ? (signal.reason as Partial<HandBack> | undefined) : undefined;
  return reason?.code === 'handback' ? (reason as HandBack) : null;
}

/** A rerun (run-rerun.service.ts): the original run, its history context, and a step before the turn starts. */
export interface RerunStart {
  rerunOf: string;
  history: ChatMessage[];
  /** runs once the new run is admitted, before its turn starts (e.g. restoring the workspace) */
  beforeRun?: (runId: string) => Promise<void>;
}

export interface StartedTurn {
  runId: string;
  project: Project | null;
  pack: PackSnapshot;
  result: Promise<TurnResult>;
}
