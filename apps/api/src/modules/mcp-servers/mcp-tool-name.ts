/**
 * Names of MCP tools in allowlists (docs/decisions/mcp.md): `server/tool`, where `server` is an MCP
 * server record's name (lower-case letters, digits, dashes) and `tool` a tool name as the MCP
 * specification allows it (letters, digits, `_`, `-`, `.`; at most 128 characters).
 */
export const SERVER_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;
export const MAX_SERVER_NAME = 40;
const TOOL_PART = /^[A-Za-z0-9_.-]{1,128}$/;

export function isMcpToolName(name: string): boolean {
  const slash = name.indexOf('/');
  if (slash < 0) return false;
  return SERVER_NAME_PATTERN.test(name.slice(0, slash)) && TOOL_PART.test(name.slice(slash + 1));
}

/** `server/tool` → its parts (the caller checked isMcpToolName). */
export function splitMcpToolName(name: string): { server: string; tool: string } {
  const slash = name.indexOf('/');
  return { server: name.slice(0, slash), tool: name.slice(slash + 1) };
}
