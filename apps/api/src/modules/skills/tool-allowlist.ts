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

const clip = (s: string) => (s.length > 64 ? s.slice(0, 64) + '…' : s);
