/**
 * Tool allowlists (skills and agents): workspace tool names and MCP tools as `server/tool` (docs/API.md,
 * docs/decisions/mcp.md; the server is resolved when a turn runs), duplicates removed, order kept.
 * The check names the offending item (`tool_allowlist[2]`) so the studio can mark it.
 */
import { invalid, type FieldProblem } from '../../platform/errors/domain-error';
import { isMcpToolName } from '../mcp-servers/mcp-tool-name';
import { TOOL_NAMES, type ToolName } from '../runtime/runtime.types';

export const MAX_TOOLS = 16;

const KNOWN: ReadonlySet<string> = new Set(TOOL_NAMES);

export const isToolName = (name: string): name is ToolName => KNOWN.has(name);

/** Field problems for unknown tool names, one per offending item. */
export function toolAllowlistProblems(list: readonly string[] | undefined, field = 'tool_allowlist'): FieldProblem[] {
  if (!list) return [];
  return list.flatMap((name, i) =>
    isToolName(name) || isMcpToolName(name)
      ? []
      : [
          {
            field: `${field}[${i}]`,
            message: `"${clip(name)}" is not a known tool; tools are ${TOOL_NAMES.join(', ')} or an MCP server's tool as server/tool`,
          },
        ],
  );
}

/** The allowlist de-duplicated in order; a 400 naming every unknown item. */
export function normaliseToolAllowlist(list: readonly string[], field = 'tool_allowlist'): string[] {
  const problems = toolAllowlistProblems(list, field);
  if (problems.length) throw invalid(problems);
  return [...new Set(list)];
}

/**
 * `tools_requiring_approval` (docs/decisions/runtime.md, "Per-tool approval"): names from the record's own
 * `tool_allowlist`, de-duplicated in order; a 400 naming every item that is not allowed.
 */
export function normaliseApprovalList(
  list: readonly string[],
  allowlist: readonly string[],
  field = 'tools_requiring_approval',
): string[] {
  const allowed = new Set(allowlist);
  const problems = list.flatMap((name, i) =>
    allowed.has(name)
      ? []
      : [
          {
            field: `${field}[${i}]`,
            message: `"${clip(name)}" is not in tool_allowlist: only an allowed tool can require approval`,
          },
        ],
  );
  if (problems.length) throw invalid(problems);
  return [...new Set(list)];
}

/**
 * On an update: the list sent is checked against the resulting allowlist; when only the allowlist changes,
 * names it no longer allows are dropped from the stored list.
 */
export function approvalPatch(
  sent: readonly string[] | undefined,
  stored: readonly string[],
  allowlist: readonly string[],
): string[] | undefined {
  if (sent !== undefined) return normaliseApprovalList(sent, allowlist);
  const kept = stored.filter((n) => allowlist.includes(n));
  return kept.length === stored.length ? undefined : kept;
}

const clip = (s: string) => (s.length > 64 ? s.slice(0, 64) + '…' : s);
