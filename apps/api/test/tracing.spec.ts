/**
 * OpenTelemetry at process level (docs/decisions/observability.md): the built server (dist/src/main.js)
 * runs as a child process with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a small OTLP/HTTP receiver on
 * 127.0.0.1, its agent on the fake model server. One turn, asked for with a W3C traceparent, must
 * arrive as one trace: HTTP request → turn → node → model calls and tool calls, with the GenAI
 * attributes, and pg spans under them. Without the variable the SDK is not even loaded.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ADMIN, createTestDb, type TestDb } from './support/app';
import { bind, setupPack } from './support/chat-pack';
import { FakeLlm } from './support/fake-llm';
import { Client } from './support/http';
import { OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver';
import { readStream } from './support/sse';
import { startChildServer, type ChildServer } from './support/child-server';

async function until<T>(
  what: string,
  read: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('without OTEL_EXPORTER_OTLP_ENDPOINT no OpenTelemetry SDK module is loaded', () => {
  // what main.ts loads before the app, then the whole app module graph
  const probe = `require(${JSON.stringify(join(__dirname, '../dist/src/platform/telemetry/start-tracing.js'))});
    require(${JSON.stringify(join(__dirname, '../dist/src/app.module.js'))});
    const loaded = Object.keys(require.cache).filter((k) => /@opentelemetry[\\\\/]/.test(k));
    process.stdout.write(JSON.stringify([...new Set(loaded.map((k) => k.split(/@opentelemetry[\\\\/]/)[1].split(/[\\\\/]/)[0]))]));`;
  const env = { ...process.env };
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const off = spawnSync(process.execPath, ['-e', probe], { env, encoding: 'utf8' });
  expect(off.stderr).toBe('');
  // at most the API package (its no-op tracer), which prom-client also loads
  expect(JSON.parse(off.stdout)).toEqual(['api']);
  const on = spawnSync(process.execPath, ['-e', probe], {
    env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
    encoding: 'utf8',
  });
  expect(JSON.parse(on.stdout)).toEqual(
    expect.arrayContaining(['sdk-trace-node', 'exporter-trace-otlp-proto', 'instrumentation-pg']),
  );
});

describe('a traced turn', () => {
  let fake: FakeLlm;
  let receiver: OtlpReceiver;
  let db: TestDb;
  let server: ChildServer;
  let spans: ReceivedSpan[];
  let url: string;
  let admin: Client;
  const traceId = randomBytes(16).toString('hex');
  const callerSpanId = randomBytes(8).toString('hex');

  beforeAll(async () => {
    fake = await FakeLlm.start();
    receiver = await OtlpReceiver.start();
    db = await createTestDb();
    server = await startChildServer(db, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'aws-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    url = server.url;

    admin = new Client(url);
    await admin.login(ADMIN.username, ADMIN.password);
    const { packId } = await setupPack(admin, fake);
    await bind(admin, 'traced', packId);
    fake.enqueue(
      { tool_calls: [{ name: 'write_file', arguments: { path: 'notes.md', content: 'n' } }] },
      { tool_calls: [{ name: 'read_file', arguments: { path: 'missing.md' } }] },
      { text: 'All written down.' },
    );
    const r = await admin.post(
      '/agent/chat',
      { project_slug: 'traced', message: 'Write the plan' },
      { traceparent: `00-${traceId}-${callerSpanId}-01` },
    );
    expect(r.status).toBe(200);
    // the batch processor sends every 100 ms: wait for the turn span, then for the request's span
    await until('the turn span', () => receiver.spans.find((s) => s.name === 'turn' && s.traceId === traceId));
    await until('the request span', () =>
      receiver.spans.find((s) => s.traceId === traceId && s.parentSpanId === callerSpanId),
    );
    spans = receiver.spans.filter((s) => s.traceId === traceId);
  });

  afterAll(async () => {
    await server?.kill();
    await db?.drop();
    await receiver?.close();
    await fake?.close();
  });

  const named = (name: string) => spans.filter((s) => s.name === name);
  const parentOf = (s: ReceivedSpan) => spans.find((p) => p.spanId === s.parentSpanId);

  test('sent as OTLP/HTTP protobuf (the default) to OTEL_EXPORTER_OTLP_ENDPOINT, under OTEL_SERVICE_NAME', () => {
    expect(receiver.requests.every((r) => r.path === '/v1/traces')).toBe(true);
    expect(receiver.requests[0].contentType).toMatch(/^application\/x-protobuf/);
    expect(spans[0].resource['service.name']).toBe('aws-under-test');
  });

  test('OTEL_EXPORTER_OTLP_PROTOCOL=http/json: the same spans as OTLP/HTTP JSON', async () => {
    const jsonReceiver = await OtlpReceiver.start();
    const other = await startChildServer(db, {
      OTEL_EXPORTER_OTLP_ENDPOINT: jsonReceiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      const jsonTrace = randomBytes(16).toString('hex');
      await fetch(`${other.url}/auth/me`, {
        headers: { traceparent: `00-${jsonTrace}-${randomBytes(8).toString('hex')}-01` },
      });
      const span = await until('the JSON request span', () => jsonReceiver.spans.find((x) => x.traceId === jsonTrace));
      expect(jsonReceiver.requests[0].contentType).toMatch(/^application\/json/);
      expect(span.kind).toBe(2); // SPAN_KIND_SERVER
      expect(span.attributes['http.response.status_code']).toBe(401);
    } finally {
      await other.kill();
      await jsonReceiver.close();
    }
  });

  test("the caller's traceparent is the parent: HTTP request → turn → node → model calls and tool calls", () => {
    const request = spans.find((s) => s.parentSpanId === callerSpanId)!;
    expect(request.name).toBe('POST /agent/chat');
    expect(request.attributes['http.route']).toBe('/agent/chat');
    expect(request.attributes['http.method'] ?? request.attributes['http.request.method']).toBe('POST');
    const [turn] = named('turn');
    expect(parentOf(turn)).toBe(request);
    const [node] = named('node write');
    expect(parentOf(node)).toBe(turn);
    const chats = named('chat fake-1');
    expect(chats).toHaveLength(3);
    for (const c of chats) expect(parentOf(c)).toBe(node);
    const tools = spans.filter((s) => s.name.startsWith('execute_tool '));
    expect(tools.map((t) => t.name).sort()).toEqual(['execute_tool read_file', 'execute_tool write_file']);
    for (const t of tools) expect(parentOf(t)).toBe(node);
  });

  test('GenAI attributes on the model calls, the tools and the agent node', () => {
    for (const c of named('chat fake-1')) {
      expect(c.kind).toBe(3); // SPAN_KIND_CLIENT
      expect(c.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'custom',
        'gen_ai.request.model': 'fake-1',
      });
      expect(c.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(c.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    }
    const [read] = named('execute_tool read_file');
    expect(read.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file' });
    expect(read.status.code).toBe(2); // STATUS_CODE_ERROR: the file does not exist
    expect(named('node write')[0].attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'Scribe',
    });
    expect(named('turn')[0].attributes).toMatchObject({
      'workflow.project.slug': 'traced',
      'workflow.outcome': 'done',
    });
  });

  test('a streamed turn: its trace starts at GET /agent/stream, whose span has no query string (the message)', async () => {
    const streamTrace = randomBytes(16).toString('hex');
    fake.enqueue({ text: 'Streamed reply.' });
    const s = await readStream(`${url}/agent/stream?project_slug=traced&message=Secret+roadmap`, {
      headers: { cookie: admin.cookie!, traceparent: `00-${streamTrace}-${randomBytes(8).toString('hex')}-01` },
    });
    expect(s.events.at(-1)?.event).toBe('close');
    const turn = await until('the streamed turn span', () =>
      receiver.spans.find((x) => x.name === 'turn' && x.traceId === streamTrace),
    );
    const request = await until('the stream request span', () =>
      receiver.spans.find((x) => x.spanId === turn.parentSpanId),
    );
    expect(request.name).toBe('GET /agent/stream');
    expect(JSON.stringify(request.attributes)).toContain('/agent/stream');
    expect(JSON.stringify(receiver.spans)).not.toMatch(/Secret|roadmap|message=/);
  });

  test('database statements are spans of the request or turn step that made them; no values, no query strings, no secrets', () => {
    const pg = spans.filter(
      (s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql',
    );
    expect(pg.length).toBeGreaterThan(0);
    // the tool's write is a statement under its execute_tool span
    const [write] = named('execute_tool write_file');
    expect(pg.some((s) => s.parentSpanId === write.spanId)).toBe(true);
    const all = JSON.stringify(receiver.spans);
    expect(all).not.toContain('Write the plan');
    expect(all).not.toContain('All written down');
    expect(all).not.toContain('sk-user-key');
    expect(all).not.toContain(ADMIN.password);
  });
});
