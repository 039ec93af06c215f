/**
 * One tool call of the ReAct loop as a durable step (docs/decisions/runtime.md, "Durable runs"): its
 * writes carry an idempotency key, and a resumed run neither repeats a recorded call nor applies twice a
 * write that landed just before the crash.
 */
import type { ToolCall } from './providers/provider';
import type { LoopInput } from './react-loop';
import type { ToolName, Workspace } from './runtime.types';
import { landedOutcome, runTool, WRITING_TOOLS, type ToolContext, type ToolOutcome } from './tools';

/**
 * Runs one tool call (a workspace tool, or `external`) — or, on a resumed run, takes its recorded result, or (a write that landed just
 * before the crash, found by its idempotency key) the change it made, so no write is applied twice.
 */
export async function toolStep(
  input: Pick<LoopInput, 'workspace' | 'log'>,
  c: ToolCall,
  key: string | undefined,
  toolCtx: ToolContext,
  /** an MCP server's tool (it writes no workspace file): how to call it when it is not recorded */
  external?: () => Promise<ToolOutcome>,
): Promise<ToolOutcome & { wrote: string[] }> {
  const recorded = input.log?.peek('tool');
  if (recorded) {
    for (const p of recorded.wrote ?? []) toolCtx.written.add(p);
    return { ...recorded.outcome, wrote: recorded.wrote ?? [] };
  }
  if (external) return { ...(await external()), wrote: [] };
  const { workspace } = input;
  if (key && input.log?.resumed && workspace.landed && WRITING_TOOLS.includes(c.name as ToolName)) {
    const change = await workspace.landed(key);
    const landed = change && landedOutcome(c.name, change);
    if (landed) {
      toolCtx.written.add(change.path);
      return { ...landed, wrote: [change.path] };
    }
  }
  const before = toolCtx.written.size;
  const ctx = key ? { ...toolCtx, workspace: keyedWorkspace(workspace, key) } : toolCtx;
  const r = await runTool(c.name, c.arguments, ctx, c.argumentsError);
  return { ...r, wrote: [...toolCtx.written].slice(before) };
}

/** The workspace as one tool call sees it: its writes carry the call's idempotency key. */
export function keyedWorkspace(ws: Workspace, key: string): Workspace {
  return {
    readOnly: ws.readOnly,
    list: (dir) => ws.list(dir),
    read: (path) => ws.read(path),
    write: (path, content) => ws.write(path, content, key),
    search: (query, dir) => ws.search(query, dir),
  };
}
