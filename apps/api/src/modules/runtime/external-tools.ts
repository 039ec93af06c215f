/**
 * External tools in the ReAct loop (docs/decisions/mcp.md): the `server/tool` names of an agent's
 * allowlist, opened through the ExternalTools port for one agent run and closed when it ends.
 *
 * Providers only accept function names of `[A-Za-z0-9_-]{1,64}`, so each tool is offered to the model
 * under a wire name (`server__tool`, made unique); events, the run log and approval all use the
 * allowlist name `server/tool`. Results get the workspace tools' limits: output cut at
 * MAX_TOOL_OUTPUT_BYTES, every failure a `{ok: false, error}` result the model reads, nothing thrown.
 */
import { Logger } from '@nestjs/common';
import { errorInfo } from '../../platform/logging/error-info';
import type { ToolSpec } from './providers/provider';
import type { ExternalToolSession, ExternalTools, ToolName } from './runtime.types';
import { truncateOutput, type ToolOutcome } from './tools';

const WIRE_NAME_MAX = 64;

export interface OfferedExternalTools {
  specs: ToolSpec[];
  /** wire name → allowlist name */
  byWireName: Map<string, string>;
  session: ExternalToolSession | null;
}

export const NO_EXTERNAL_TOOLS: OfferedExternalTools = { specs: [], byWireName: new Map(), session: null };

/** A provider-safe function name for `server/tool`, not clashing with `taken`. */
export function wireName(name: string, taken: ReadonlySet<string>): string {
  const base = name
    .replace('/', '__')
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .slice(0, WIRE_NAME_MAX);
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) {
    const suffix = `_${i}`;
    const candidate = base.slice(0, WIRE_NAME_MAX - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Opens the agent's external tools (none when the port or the names are missing). Never throws. */
export async function openExternalTools(
  port: ExternalTools | undefined,
  names: readonly string[] | undefined,
  builtIn: readonly ToolName[],
  signal: AbortSignal,
): Promise<OfferedExternalTools> {
  if (!port || !names?.length) return NO_EXTERNAL_TOOLS;
  let session: ExternalToolSession;
  try {
    session = await port.open(names, signal);
  } catch (e) {
    new Logger('ExternalTools').error({ err: errorInfo(e) }, 'external tools could not be opened');
    return NO_EXTERNAL_TOOLS;
  }
  const taken = new Set<string>(builtIn);
  const byWireName = new Map<string, string>();
  const specs: ToolSpec[] = [];
  for (const t of session.tools) {
    const wire = wireName(t.name, taken);
    taken.add(wire);
    byWireName.set(wire, t.name);
    specs.push({ name: wire, description: t.description, parameters: t.parameters });
  }
  return { specs, byWireName, session };
}

/** Runs one external tool call with the workspace tools' limits. Never throws. */
export async function runExternalTool(
  offered: OfferedExternalTools,
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  argumentsError?: string,
): Promise<ToolOutcome> {
  if (argumentsError) return failed(argumentsError);
  if (!offered.session) return failed(`the tool "${name}" is not available`);
  try {
    const r = await offered.session.call(name, args && typeof args === 'object' ? args : {}, signal);
    if (!r.ok) return failed(r.error || `the tool "${name}" failed`);
    return { ok: true, output: truncateOutput(r.output) };
  } catch (e) {
    new Logger('ExternalTools').error({ err: errorInfo(e), tool: name }, 'external tool failed unexpectedly');
    return failed(`the ${name} tool failed unexpectedly`);
  }
}

/** Closes the session in the background; a close failure is logged, never thrown into the turn. */
export function closeExternalTools(offered: OfferedExternalTools): void {
  offered.session?.close().catch((e: unknown) => {
    new Logger('ExternalTools').warn({ err: errorInfo(e) }, 'closing external tool connections failed');
  });
}

function failed(error: string): ToolOutcome {
  return { ok: false, output: '', error: truncateOutput(error, 2048) };
}
