/**
 * Per-tool approval (docs/decisions/runtime.md, "Per-tool approval"): a call to a tool named in the agent's
 * `tools_requiring_approval` (its own ∪ its skills', keyed by allowlist name, so `server/tool` for MCP) is
 * not run until the user decides. The decision is one more recorded step (`decision`, step-log.ts), stored by
 * the approval endpoint; the run then resumes like any resume and finds it where the call stopped.
 */
import type { ToolCall } from './providers/provider';
import type { PendingApproval, ResolvedAgent } from './runtime.types';
import type { StepLog, StepOf } from './step-log';
import type { ToolOutcome } from './tools';

/** Thrown by the ReAct loop at a call waiting for a decision; the turn ends `awaiting_approval`. */
export class AwaitingApproval extends Error {
  constructor(readonly pending: PendingApproval) {
    super(`The call ${pending.call_id} to ${pending.name} waits for approval.`);
  }
}

export function requiresApproval(agent: Pick<ResolvedAgent, 'tools_requiring_approval'>, name: string): boolean {
  return !!agent.tools_requiring_approval?.includes(name);
}

/** The outcome the model sees for a rejected call: the user's reason as the tool's error. */
export function rejectedOutcome(reason: string | undefined): ToolOutcome {
  const why = reason?.trim();
  return { ok: false, output: '', error: `The user rejected this call${why ? `: ${why}` : '.'}` };
}

/**
 * The recorded decision on call `c` (and it is passed in the log), or AwaitingApproval when there is none:
 * the turn stops at this call, its model response already recorded.
 */
export async function decisionFor(log: StepLog | undefined, c: ToolCall, name: string): Promise<StepOf<'decision'>> {
  const d = log?.peek('decision');
  if (!log || !d || d.call_id !== c.id) throw new AwaitingApproval({ call_id: c.id, name, arguments: c.arguments });
  await log.complete(d);
  return d;
}

/** The call as the tool runs it: an `edit` decision replaces its arguments. */
export function decidedCall(c: ToolCall, d: StepOf<'decision'>): ToolCall {
  if (d.decision !== 'edit') return c;
  const { argumentsError: _dropped, ...rest } = c;
  return { ...rest, arguments: d.arguments as ToolCall['arguments'] };
}
