/**
 * One connection to an MCP tool server over Streamable HTTP, through the SDK's client
 * (docs/decisions/mcp.md): requests go through the MODEL_HOSTS `policyFetch` (the host re-checked and
 * resolved on every request, redirects never followed), every request has a timeout, and failures
 * become McpCallError with a message fit for a user or a model — never a header value.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { HostPolicyError, policyFetch, type HostMode } from '../../platform/net/host-policy';

/** How many tools one server may describe (pages are read until this many). */
export const MAX_LISTED_TOOLS = 256;

export interface McpEndpoint {
  name: string;
  url: string;
  headers: Record<string, string>;
}

export interface McpClientOptions {
  hostMode: HostMode;
  timeoutMs: number;
  version: string;
}

export class McpCallError extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'refused' | 'unreachable' | 'protocol',
  ) {
    super(message);
    this.name = 'McpCallError';
  }
}

export class McpConnection {
  private constructor(
    readonly endpoint: McpEndpoint,
    private readonly client: Client,
    private readonly opts: McpClientOptions,
  ) {}

  static async open(endpoint: McpEndpoint, opts: McpClientOptions, signal?: AbortSignal): Promise<McpConnection> {
    const client = new Client({ name: 'agentic-workflow-service', version: opts.version });
    const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
      fetch: policyFetch(opts.hostMode),
      requestInit: { headers: endpoint.headers, redirect: 'manual' },
      reconnectionOptions: {
        maxReconnectionDelay: 1000,
        initialReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 1,
        maxRetries: 0,
      },
    });
    try {
      await client.connect(transport, { timeout: opts.timeoutMs, signal });
    } catch (e) {
      await client.close().catch(() => undefined);
      throw describe(e, endpoint, opts, 'connect');
    }
    return new McpConnection(endpoint, client, opts);
  }

  async listTools(signal?: AbortSignal): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await this.client.listTools(cursor ? { cursor } : undefined, {
          timeout: this.opts.timeoutMs,
          signal,
        });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor && tools.length < MAX_LISTED_TOOLS);
    } catch (e) {
      throw describe(e, this.endpoint, this.opts, 'list its tools');
    }
    return tools.slice(0, MAX_LISTED_TOOLS);
  }

  /** Calls a tool; a tool's own failure (`isError`) is a result, transport and protocol failures throw. */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<{ ok: boolean; text: string }> {
    let result: CallToolResult;
    try {
      result = (await this.client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: this.opts.timeoutMs,
        signal,
      })) as CallToolResult;
    } catch (e) {
      throw describe(e, this.endpoint, this.opts, `call ${tool}`);
    }
    return { ok: !result.isError, text: resultText(result) };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** The text a model reads from a tool result: text parts joined, other parts named, structured content as JSON. */
export function resultText(result: CallToolResult): string {
  const parts: string[] = [];
  for (const c of result.content ?? []) {
    if (c.type === 'text') parts.push(c.text);
    else if (c.type === 'resource') parts.push('text' in c.resource ? c.resource.text : `[resource ${c.resource.uri}]`);
    else if (c.type === 'resource_link') parts.push(`[resource ${c.uri}]`);
    else parts.push(`[${c.type}${'mimeType' in c ? ` ${c.mimeType}` : ''}]`);
  }
  if (!parts.length && result.structuredContent) parts.push(JSON.stringify(result.structuredContent));
  return parts.join('\n');
}

function describe(e: unknown, endpoint: McpEndpoint, opts: McpClientOptions, doing: string): McpCallError {
  const who = `the MCP server "${endpoint.name}"`;
  if (e instanceof McpCallError) return e;
  if (e instanceof McpError && e.code === REQUEST_TIMEOUT)
    return new McpCallError(`${who} did not answer within ${opts.timeoutMs} ms (${doing})`, 'timeout');
  const policy = findCause(e, HostPolicyError);
  if (policy) return new McpCallError(`${who} is not allowed: ${policy.message}`, 'refused');
  if (e instanceof StreamableHTTPError)
    return new McpCallError(`${who} answered HTTP ${e.code ?? 'error'} (${doing})`, 'protocol');
  if (e instanceof McpError) return new McpCallError(`${who} refused to ${doing}: ${clip(e.message)}`, 'protocol');
  const code = networkCode(e);
  if (code) return new McpCallError(`${who} could not be reached (${code})`, 'unreachable');
  return new McpCallError(`${who} failed to ${doing}: ${clip(e instanceof Error ? e.message : String(e))}`, 'protocol');
}

function findCause<T extends Error>(e: unknown, type: new (...args: never[]) => T): T | null {
  for (let cur: unknown = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++)
    if (cur instanceof type) return cur;
  return null;
}

function networkCode(e: unknown): string | null {
  for (let cur: unknown = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  const message = e instanceof Error ? e.message : '';
  return /fetch failed|ECONNREFUSED|ENOTFOUND|ECONNRESET|EHOSTUNREACH/i.test(message) ? clip(message) : null;
}

const REQUEST_TIMEOUT: number = ErrorCode.RequestTimeout;
const clip = (s: string) => (s.length > 300 ? s.slice(0, 300) + '…' : s);
