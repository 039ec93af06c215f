/**
 * MCP tool servers (docs/decisions/mcp.md) against a real MCP server built with the SDK on 127.0.0.1:
 * records with sealed headers (never returned), the MODEL_HOSTS policy on URLs, the tool list, and a
 * turn driven by the scripted fake provider that calls MCP tools — one answering, one failing, one too
 * slow (timed out), one too big (cut at 16 KiB) — with every failure going back to the model.
 */
import { ADMIN, startApp, type TestApp } from './support/app';
import { FakeLlm } from './support/fake-llm';
import { Client, newUser } from './support/http';
import { McpToolServer } from './support/mcp-tool-server';
import { bind } from './support/chat-pack';

const SECRET = 'Bearer mcp-secret-value-123';
const TIMEOUT_MS = 1500;

describe('MCP tool servers', () => {
  let t: TestApp;
  let fake: FakeLlm;
  let tools: McpToolServer;
  let a: Client;

  beforeAll(async () => {
    fake = await FakeLlm.start();
    tools = await McpToolServer.start();
    t = await startApp({ config: { mcpToolTimeoutMs: TIMEOUT_MS } });
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
  });
  afterAll(async () => {
    await t.close();
    await tools.close();
    await fake.close();
  });

  test('a record keeps its header values sealed: never in any response', async () => {
    const created = await a.post('/studio/api/mcp-servers', {
      name: 'sealed',
      url: tools.url,
      headers: { Authorization: SECRET, 'X-Team': 'blue' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'sealed', url: tools.url, header_names: ['Authorization', 'X-Team'] });
    const id = created.body.id;
    const texts = [
      created.text,
      (await a.get('/studio/api/mcp-servers')).text,
      (await a.get(`/studio/api/mcp-servers/${id}`)).text,
      (await a.put(`/studio/api/mcp-servers/${id}`, { url: tools.url })).text,
      (await a.get(`/studio/api/mcp-servers/${id}/tools`)).text,
    ];
    for (const text of texts) {
      expect(text).not.toContain('mcp-secret-value');
      expect(text).not.toContain('blue');
    }
    // the values are sent to the server itself
    expect(tools.headers.some((h) => h.authorization === SECRET && h['x-team'] === 'blue')).toBe(true);

    const cleared = await a.put(`/studio/api/mcp-servers/${id}`, { headers: null });
    expect(cleared.body.header_names).toEqual([]);
    expect((await a.delete(`/studio/api/mcp-servers/${id}`)).status).toBe(204);
    expect((await a.get(`/studio/api/mcp-servers/${id}`)).status).toBe(404);
  });

  test('the tool list comes from the server, with the allowlist names', async () => {
    const s = await a.post('/studio/api/mcp-servers', { name: 'listing', url: tools.url });
    const r = await a.get(`/studio/api/mcp-servers/${s.body.id}/tools`);
    expect(r.status).toBe(200);
    expect(r.body.server).toBe('listing');
    expect(r.body.tools.map((x: { qualified_name: string }) => x.qualified_name).sort()).toEqual([
      'listing/big',
      'listing/echo',
      'listing/fail',
      'listing/slow',
    ]);
    const echo = r.body.tools.find((x: { name: string }) => x.name === 'echo');
    expect(echo.description).toBe('Echo a text back.');
    expect(echo.input_schema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
  });

  test('an unreachable server is a clear 502', async () => {
    const s = await a.post('/studio/api/mcp-servers', { name: 'gone', url: 'http://127.0.0.1:9/mcp' });
    const r = await a.get(`/studio/api/mcp-servers/${s.body.id}/tools`);
    expect(r.status).toBe(502);
    expect(r.body.code).toBe('mcp.unreachable');
    expect(r.body.detail).toMatch(/the MCP server "gone" could not be reached/);
  });

  test('URLs follow the host policy: metadata addresses and other schemes are refused', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:169.254.169.254]/mcp',
      'http://metadata.google.internal/mcp',
      'file:///etc/passwd',
      'not a url',
    ]) {
      const r = await a.post('/studio/api/mcp-servers', { name: 'bad', url });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].field).toBe('url');
    }
    const s = await a.post('/studio/api/mcp-servers', { name: 'moving', url: tools.url });
    const moved = await a.put(`/studio/api/mcp-servers/${s.body.id}`, { url: 'http://169.254.169.254/' });
    expect(moved.status).toBe(400);
  });

  test('MODEL_HOSTS=public: loopback refused when saved, and at call time for a server saved before', async () => {
    const saved = await a.post('/studio/api/mcp-servers', { name: 'local', url: tools.url });
    expect(saved.status).toBe(201);
    await t.stop();
    t = await startApp({ db: t.db, config: { mcpToolTimeoutMs: TIMEOUT_MS, modelHosts: 'public' } });
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    const refused = await a.post('/studio/api/mcp-servers', { name: 'local2', url: tools.url });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('url');
    const listed = await a.get(`/studio/api/mcp-servers/${saved.body.id}/tools`);
    expect(listed.status).toBe(400);
    expect(listed.body.code).toBe('mcp.refused');
    await t.stop();
    t = await startApp({ db: t.db, config: { mcpToolTimeoutMs: TIMEOUT_MS } });
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
  });

  test('names, headers and ownership are checked', async () => {
    expect((await a.post('/studio/api/mcp-servers', { name: 'Bad Name', url: tools.url })).status).toBe(400);
    expect((await a.post('/studio/api/mcp-servers', { name: 'x', url: tools.url, extra: 1 })).status).toBe(400);
    const reserved = await a.post('/studio/api/mcp-servers', { name: 'h', url: tools.url, headers: { Host: 'x' } });
    expect(reserved.status).toBe(400);
    const crlf = await a.post('/studio/api/mcp-servers', { name: 'h', url: tools.url, headers: { 'X-A': 'a\r\nb' } });
    expect(crlf.status).toBe(400);
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`X-${i}`, 'v']));
    expect((await a.post('/studio/api/mcp-servers', { name: 'h', url: tools.url, headers: many })).status).toBe(400);

    const first = await a.post('/studio/api/mcp-servers', { name: 'dup', url: tools.url });
    expect(first.status).toBe(201);
    const again = await a.post('/studio/api/mcp-servers', { name: 'dup', url: tools.url });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('record.duplicate');

    const other = await newUser(t.url, a, 'mcp-other');
    expect((await other.get(`/studio/api/mcp-servers/${first.body.id}`)).status).toBe(404);
    expect((await other.get(`/studio/api/mcp-servers/${first.body.id}/tools`)).status).toBe(404);
    expect((await other.delete(`/studio/api/mcp-servers/${first.body.id}`)).status).toBe(404);
    expect((await other.get('/studio/api/mcp-servers')).body).toEqual([]);
    expect((await new Client(t.url).get('/studio/api/mcp-servers')).status).toBe(401);
  });

  test('allowlists take server/tool names; unknown shapes are refused', async () => {
    const ok = await a.post('/studio/api/skills', { name: 'Uses MCP', tool_allowlist: ['read_file', 'docs/search'] });
    expect(ok.status).toBe(201);
    expect(ok.body.tool_allowlist).toEqual(['read_file', 'docs/search']);
    const bad = await a.post('/studio/api/agents', { name: 'Bad', tool_allowlist: ['docs/a b'] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('tool_allowlist[0]');
  });

  test('a turn calls MCP tools with the workspace tools limits; failures go back to the model', async () => {
    await a.post('/studio/api/mcp-servers', { name: 'kit', url: tools.url, headers: { Authorization: SECRET } });
    const model = await a.post('/studio/api/models', {
      label: 'Fake',
      provider: 'custom',
      model_id: 'fake-1',
      api_base: fake.openaiBase,
    });
    const agent = await a.post('/studio/api/agents', {
      name: 'Caller',
      model_id: model.body.id,
      tool_allowlist: ['kit/echo', 'kit/fail', 'kit/slow', 'kit/big', 'kit/missing', 'nowhere/tool'],
    });
    expect(agent.status).toBe(201);
    const pack = await a.post('/studio/api/workflows', { name: 'MCP pack', domain: 'pdlc' });
    const g = await a.put(`/studio/api/workflows/${pack.body.id}/graph`, {
      nodes: [{ node_key: 'call', type: 'agent', agent_id: agent.body.id, stage_label: 'discover' }],
      edges: [{ from_node: 'start', to_node: 'call' }],
    });
    expect(g.status).toBe(200);
    await bind(a, 'mcp-turn', pack.body.id);

    tools.slowMs = 60_000;
    fake.enqueue(
      {
        tool_calls: [
          { name: 'kit__echo', arguments: { text: 'hello' } },
          { name: 'kit__fail', arguments: {} },
          { name: 'kit__slow', arguments: {} },
          { name: 'kit__big', arguments: {} },
        ],
      },
      { text: 'all done' },
    );
    const before = fake.requests.length;
    const r = await a.post('/agent/chat', { project_slug: 'mcp-turn', message: 'use the tools' });
    expect(r.status).toBe(200);
    expect(r.body.reply).toBe('all done');
    expect(r.body.tool_calls).toEqual([
      { name: 'kit/echo', arguments: { text: 'hello' }, ok: true },
      { name: 'kit/fail', arguments: {}, ok: false },
      { name: 'kit/slow', arguments: {}, ok: false },
      { name: 'kit/big', arguments: {}, ok: true },
    ]);

    const [first, second] = fake.requests.slice(before);
    // offered under provider-safe names, with the server's JSON schemas; missing tools/servers are not offered
    const offered = first.body.tools.map((x: { function: { name: string } }) => x.function.name).sort();
    expect(offered).toEqual(['kit__big', 'kit__echo', 'kit__fail', 'kit__slow']);
    const echoSpec = first.body.tools.find((x: { function: { name: string } }) => x.function.name === 'kit__echo');
    expect(echoSpec.function.parameters.properties.text.type).toBe('string');

    const toolMessages = second.body.messages.filter((m: { role: string }) => m.role === 'tool');
    expect(toolMessages[0].content).toBe('echo: hello');
    expect(JSON.parse(toolMessages[1].content)).toEqual({ ok: false, error: 'the backend is down' });
    expect(JSON.parse(toolMessages[2].content).error).toMatch(
      new RegExp(`the MCP server "kit" did not answer within ${TIMEOUT_MS} ms`),
    );
    expect(Buffer.byteLength(toolMessages[3].content)).toBeLessThanOrEqual(16 * 1024);
    expect(toolMessages[3].content).toMatch(/output truncated at 16 KiB/);
    expect(JSON.stringify(fake.requests)).not.toContain('mcp-secret-value');

    // the history names the tools by their allowlist names
    const history = await a.get('/agent/history/mcp-turn');
    expect(history.body.messages[1].tool_calls.map((c: { name: string }) => c.name)).toEqual([
      'kit/echo',
      'kit/fail',
      'kit/slow',
      'kit/big',
    ]);
    expect(history.text).not.toContain('mcp-secret-value');
  });
});
