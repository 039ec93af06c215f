/**
 * A real MCP tool server for API tests, built with the SDK (McpServer over the Streamable HTTP server
 * transport, stateless) on 127.0.0.1: `echo` answers its text, `fail` is a tool error, `slow` answers
 * after `slowMs` (or when the caller gives up), `big` answers 64 KiB. Records the headers of every
 * request, so a test can see the sealed header values arrive.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export class McpToolServer {
  url = '';
  readonly headers: IncomingHttpHeaders[] = [];
  readonly calls: Array<{ tool: string; args: unknown }> = [];
  slowMs = 60_000;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<McpToolServer> {
    const http = createServer();
    const s = new McpToolServer(http);
    http.on('connection', (sock) => {
      s.sockets.add(sock);
      sock.on('close', () => s.sockets.delete(sock));
    });
    http.on('request', (req, res) => {
      s.headers.push(req.headers);
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
        const server = s.build();
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        res.on('close', () => void server.close());
        server
          .connect(transport)
          .then(() => transport.handleRequest(req, res, body))
          .catch(() => res.destroy());
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    s.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    return s;
  }

  private build(): McpServer {
    const server = new McpServer({ name: 'test-tools', version: '1.0.0' });
    server.registerTool(
      'echo',
      { description: 'Echo a text back.', inputSchema: { text: z.string() } },
      async ({ text }) => {
        this.calls.push({ tool: 'echo', args: { text } });
        return { content: [{ type: 'text', text: `echo: ${text}` }] };
      },
    );
    server.registerTool('fail', { description: 'Always fails.', inputSchema: {} }, async () => {
      this.calls.push({ tool: 'fail', args: {} });
      return { isError: true, content: [{ type: 'text', text: 'the backend is down' }] };
    });
    server.registerTool('slow', { description: 'Answers slowly.', inputSchema: {} }, async (_args, extra) => {
      this.calls.push({ tool: 'slow', args: {} });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.slowMs);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      return { content: [{ type: 'text', text: 'finally' }] };
    });
    server.registerTool('big', { description: 'Answers 64 KiB.', inputSchema: {} }, async () => {
      this.calls.push({ tool: 'big', args: {} });
      return { content: [{ type: 'text', text: 'x'.repeat(64 * 1024) }] };
    });
    return server;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
