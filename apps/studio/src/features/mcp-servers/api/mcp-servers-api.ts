import type { McpServer, McpServerInput, McpToolList } from '../../../shared/api-types';
import { http } from '../../../shared/http';
import { resourceApi, resourceKeys } from '../../../shared/resource-api';

export const mcpServerKeys = resourceKeys('mcp-servers');
export const mcpServersApi = resourceApi<McpServer, McpServerInput>('/studio/api/mcp-servers');

/** Connects to the server (through the API) and lists its tools. */
export const listMcpTools = (id: number, signal?: AbortSignal) =>
  http.get<McpToolList>(`/studio/api/mcp-servers/${id}/tools`, { signal });

export const mcpToolKeys = (id: number) => [...mcpServerKeys.all, 'tools', id] as const;

/** "Name: value" lines ⇄ a header object (values are write-only: the form never shows stored ones). */
export function parseHeaderLines(text: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return `Line ${i + 1}: write "Name: value".`;
    out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return out;
}
