/**
 * Packs as an MCP server (docs/API.md "Packs as an MCP server"): `/mcp` driven by the SDK's own client
 * with a personal access token — anonymous and cookie-only callers get 401, the four tools are listed,
 * a message is answered by a turn of the scripted fake provider, the gate is approved, a file is read.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ADMIN, startApp, type TestApp } from './support/app';
import { bind, setupPack } from './support/chat-pack';
import { FakeLlm } from './support/fake-llm';
import { Client } from './support/http';

describe('/mcp', () => {
  let t: TestApp;
  let fake: FakeLlm;
  let a: Client;
  let token: string;
  const clients: McpClient[] = [];

  const connect = async (headers: Record<string, string>) => {
    const client = new McpClient({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  };
  const parts = (r: unknown) => (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : ''));
  const text = (r: unknown) => parts(r).join('\n');

  beforeAll(async () => {
    fake = await FakeLlm.start();
    t = await startApp();
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    token = (await a.post('/auth/tokens', { name: 'mcp' })).body.token;
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await t.close();
    await fake.close();
  });

  test('anonymous, a bad token and a session cookie alone are 401', async () => {
    await expect(connect({})).rejects.toThrow(/401/);
    await expect(connect({ authorization: 'Bearer aws_not-a-token' })).rejects.toThrow(/401/);
    const cookieOnly = await a.post('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(cookieOnly.status).toBe(401);
    expect(cookieOnly.headers.get('www-authenticate')).toBe('Bearer');
    expect((await new Client(t.url).post('/mcp', {})).status).toBe(401);
  });

  test('GET and DELETE are 405: the server is stateless', async () => {
    const c = new Client(t.url);
    c.bearer = token;
    const get = await c.get('/mcp');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await c.delete('/mcp')).status).toBe(405);
  });

  test('lists the tools, answers a message, approves the gate, reads a file', async () => {
    const { packId } = await setupPack(a, fake);
    await bind(a, 'via-mcp', packId);
    const mcp = await connect({ authorization: `Bearer ${token}` });

    const names = (await mcp.listTools()).tools.map((x) => x.name).sort();
    expect(names).toEqual(['approve_gate', 'list_projects', 'read_file', 'send_message']);

    const projects = JSON.parse(text(await mcp.callTool({ name: 'list_projects', arguments: {} })));
    expect(projects.projects).toEqual([
      expect.objectContaining({ slug: 'via-mcp', stage: 'discover', awaiting_gate: null }),
    ]);

    const early = await mcp.callTool({ name: 'approve_gate', arguments: { project: 'via-mcp' } });
    expect(early.isError).toBe(true);
    expect(text(early)).toMatch(/not waiting at a gate/);

    fake.enqueue({ text: 'Here is the draft.' });
    const sent = await mcp.callTool({ name: 'send_message', arguments: { project: 'via-mcp', message: 'draft it' } });
    expect(sent.isError).toBeFalsy();
    const [reply, summary] = parts(sent);
    expect(reply).toBe('Here is the draft.');
    expect(JSON.parse(summary)).toMatchObject({
      stage: 'discover',
      agent: 'Scribe',
      awaiting_gate: { node_key: 'gate1', next_stage: 'design' },
    });

    const file = await mcp.callTool({ name: 'read_file', arguments: { project: 'via-mcp', path: 'docs/out.md' } });
    expect(text(file)).toBe('Here is the draft.');
    const missing = await mcp.callTool({ name: 'read_file', arguments: { project: 'via-mcp', path: 'nope.md' } });
    expect(missing.isError).toBe(true);
    const escape = await mcp.callTool({ name: 'read_file', arguments: { project: 'via-mcp', path: '../x' } });
    expect(escape.isError).toBe(true);

    fake.enqueue({ text: 'Designing now.' });
    const approved = await mcp.callTool({ name: 'approve_gate', arguments: { project: 'via-mcp', message: 'go on' } });
    expect(text(approved)).toContain('Designing now.');
    expect(JSON.parse(parts(approved)[1]).stage).toBe('design');

    const bad = await mcp.callTool({ name: 'send_message', arguments: { project: 'Not A Slug', message: 'x' } });
    expect(bad.isError).toBe(true);
    const other = await mcp.callTool({ name: 'send_message', arguments: { project: 'not-mine', message: 'x' } });
    expect(other.isError).toBe(true);
  });
});
