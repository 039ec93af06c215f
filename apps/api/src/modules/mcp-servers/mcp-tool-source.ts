/**
 * The runtime's ExternalTools port, implemented with MCP servers (docs/decisions/mcp.md): `open` is
 * called once per agent run with the agent's `server/tool` names; it connects to each named server
 * (in parallel, each with the tool timeout), lists its tools and keeps the named ones. A server that
 * is missing, refused or unreachable is logged and its tools are not offered. The session's
 * connections are closed when the agent run ends — no pool: a turn pays one connect per server.
 */
import { Logger } from '@nestjs/common';
import type { ExternalToolSession, ExternalTools, ExternalToolSpec } from '../runtime/runtime.types';
import { McpCallError, McpConnection, type McpClientOptions, type McpEndpoint } from './mcp-client';
import { isMcpToolName, splitMcpToolName } from './mcp-tool-name';

export class McpToolSource implements ExternalTools {
  private readonly logger = new Logger('McpTools');

  constructor(
    private readonly endpoints: (names: string[]) => Promise<McpEndpoint[]>,
    private readonly opts: McpClientOptions,
  ) {}

  async open(names: readonly string[], signal: AbortSignal): Promise<ExternalToolSession> {
    const wanted = new Map<string, Set<string>>();
    for (const n of names.filter(isMcpToolName)) {
      const { server, tool } = splitMcpToolName(n);
      if (!wanted.has(server)) wanted.set(server, new Set());
      wanted.get(server)!.add(tool);
    }
    const endpoints = wanted.size ? await this.endpoints([...wanted.keys()]) : [];
    for (const server of wanted.keys())
      if (!endpoints.some((e) => e.name === server))
        this.logger.warn({ server }, 'an allowlist names an MCP server that does not exist or is not visible');

    const opened = await Promise.all(endpoints.map((e) => this.connect(e, wanted.get(e.name)!, signal)));
    const connections = new Map<string, McpConnection>();
    const tools: ExternalToolSpec[] = [];
    for (const o of opened) {
      if (!o) continue;
      connections.set(o.conn.endpoint.name, o.conn);
      tools.push(...o.tools);
    }
    return new McpSession(tools, connections);
  }

  private async connect(endpoint: McpEndpoint, wanted: Set<string>, signal: AbortSignal) {
    let conn: McpConnection | null = null;
    try {
      conn = await McpConnection.open(endpoint, this.opts, signal);
      const listed = await conn.listTools(signal);
      const tools: ExternalToolSpec[] = listed
        .filter((t) => wanted.has(t.name))
        .map((t) => ({
          name: `${endpoint.name}/${t.name}`,
          description: t.description ?? '',
          parameters: t.inputSchema,
        }));
      const missing = [...wanted].filter((w) => !listed.some((t) => t.name === w));
      if (missing.length)
        this.logger.warn({ server: endpoint.name, missing }, 'an allowlist names tools the MCP server does not have');
      return { conn, tools };
    } catch (e) {
      await conn?.close().catch(() => undefined);
      const message = e instanceof McpCallError ? e.message : String(e);
      this.logger.warn({ server: endpoint.name, reason: message }, 'MCP server unavailable: its tools are not offered');
      return null;
    }
  }
}

class McpSession implements ExternalToolSession {
  constructor(
    readonly tools: ExternalToolSpec[],
    private readonly connections: Map<string, McpConnection>,
  ) {}

  async call(name: string, args: Record<string, unknown>, signal: AbortSignal) {
    const { server, tool } = splitMcpToolName(name);
    const conn = this.connections.get(server);
    if (!conn || !this.tools.some((t) => t.name === name))
      return { ok: false, output: '', error: `the tool "${name}" is not available` };
    try {
      const r = await conn.callTool(tool, args, signal);
      return r.ok ? { ok: true, output: r.text } : { ok: false, output: '', error: r.text || `${name} failed` };
    } catch (e) {
      if (e instanceof McpCallError) return { ok: false, output: '', error: e.message };
      throw e;
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.connections.values()].map((c) => c.close()));
  }
}
