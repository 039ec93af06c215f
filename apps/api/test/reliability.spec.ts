/**
 * The database failing under a running service (docs/decisions/runtime.md, "No lost event, no stuck
 * run"): a TCP proxy (support/db-proxy.ts) between the app and a database of the test's own on the
 * Postgres server is cut, frozen and restored while turns stream and requests arrive.
 */
import assert from 'node:assert/strict';
import { Client as PgClient } from 'pg';
import { ADMIN, createTestDb, startApp, type TestApp, type TestDb } from './support/app';
import { DbProxy } from './support/db-proxy';
import { FakeLlm } from './support/fake-llm';
import { Client } from './support/http';
import { names, readStream, type SseEvent } from './support/sse';

/** A bounded wait for a condition (polled). */
async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function onePack(c: Client, fake: FakeLlm): Promise<number> {
  const model = await c.post('/studio/api/models', {
    label: 'Fake',
    provider: 'custom',
    model_id: 'fake-1',
    api_base: fake.openaiBase,
    api_key: 'sk-user-key',
  });
  assert.equal(model.status, 201, model.text);
  const agent = await c.post('/studio/api/agents', {
    name: 'Scribe',
    role: 'writer',
    model_id: model.body.id,
    tool_allowlist: ['read_file'],
    max_iterations: 2,
  });
  assert.equal(agent.status, 201, agent.text);
  const pack = await c.post('/studio/api/workflows', { name: 'Blip pack', domain: 'pdlc' });
  const g = await c.put(`/studio/api/workflows/${pack.body.id}/graph`, {
    nodes: [{ node_key: 'write', type: 'agent', agent_id: agent.body.id, stage_label: 'discover' }],
    edges: [{ from_node: 'start', to_node: 'write' }],
  });
  assert.equal(g.status, 200, g.text);
  return pack.body.id;
}

describe('the database fails under a running service', () => {
  let db: TestDb;
  let proxy: DbProxy;
  let t: TestApp;
  let fake: FakeLlm;
  let a: Client;
  let packId: number;
  /** a direct connection (not through the proxy) to check what is stored */
  let direct: PgClient;

  beforeAll(async () => {
    fake = await FakeLlm.start();
    db = await createTestDb();
    proxy = await DbProxy.start(db.databaseUrl!);
    t = await startApp({
      db: { ...db, databaseUrl: proxy.url },
      config: { runRecordWaitMs: 300, dbConnectTimeoutMs: 500, dbQueryTimeoutMs: 1_000, dbStatementTimeoutMs: 1_000 },
    });
    direct = new PgClient({ connectionString: db.databaseUrl! });
    await direct.connect();
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    packId = await onePack(a, fake);
  });
  afterAll(async () => {
    proxy.restore();
    await direct.end();
    await t.close();
    await proxy.close();
    await fake.close();
  });

  const bind = async (slug: string) => {
    const r = await a.put(`/agent/workflows/${slug}`, { domain: 'pdlc', stage: 'discover', pack_id: packId });
    assert.equal(r.status, 200, r.text);
  };
  const stored = async (runId: string) =>
    (await direct.query('SELECT seq, event FROM run_events WHERE run_id = $1 ORDER BY seq', [runId])).rows as Array<{
      seq: number;
      event: string;
    }>;

  test('a blip mid-stream loses no event: the run ends done and its stored events are every seq once, in order', async () => {
    await bind('blip');
    fake.enqueue({ tokens: 60, tokenIntervalMs: 25 });
    let contents = 0;
    const s = await readStream(`${t.url}/agent/stream?project_slug=blip&message=go`, {
      headers: { cookie: a.cookie! },
      onEvent: (e: SseEvent) => {
        if (e.event !== 'content') return;
        contents++;
        if (contents === 10) proxy.cut();
        if (contents === 40) proxy.restore();
      },
    });
    assert.ok(proxy.accepted > 0);
    assert.equal(contents, 60);
    s.events.forEach((e, i) => assert.equal(e.seq, i + 1));
    assert.deepEqual(names(s.events).slice(-3), ['workflow', 'done', 'close']);
    assert.equal(s.events.filter((e) => e.event === 'error').length, 0);
    const runId = s.events[0].id.split(':')[0];
    const rows = await stored(runId);
    assert.deepEqual(
      rows.map((r) => r.seq),
      s.events.map((e) => e.seq),
      'every event stored exactly once',
    );
    assert.deepEqual(
      rows.map((r) => r.event),
      names(s.events),
    );
    const run = (await direct.query('SELECT state, last_seq FROM runs WHERE id = $1', [runId])).rows[0];
    assert.equal(run.state, 'done');
    const replay = await readStream(`${t.url}/agent/stream`, {
      headers: { cookie: a.cookie!, 'last-event-id': `${runId}:0` },
    });
    assert.deepEqual(
      replay.events.map((e) => e.seq),
      s.events.map((e) => e.seq),
    );
  });

  test('the database down when the turn ends: error outcome_not_stored, then done, then close; the run is settled when it returns', async () => {
    await bind('down');
    fake.enqueue({ tokens: 20, tokenIntervalMs: 25 });
    let contents = 0;
    const s = await readStream(`${t.url}/agent/stream?project_slug=down&message=go`, {
      headers: { cookie: a.cookie! },
      onEvent: (e: SseEvent) => {
        if (e.event === 'content' && ++contents === 5) proxy.cut();
      },
    });
    const runId = s.events[0].id.split(':')[0];
    assert.deepEqual(names(s.events).slice(-4), ['workflow', 'error', 'done', 'close']);
    assert.equal(s.events.filter((e) => e.event === 'done').length, 1, 'one done, never two');
    assert.equal(s.events.at(-3)!.data.code, 'outcome_not_stored');
    // while the database is away the run is neither cancellable nor forgotten
    proxy.restore();
    const run = await until(
      'the run settled',
      async () => (await direct.query(`SELECT state FROM runs WHERE id = $1 AND state <> 'running'`, [runId])).rows[0],
    );
    assert.equal(run.state, 'done');
    const rows = await stored(runId);
    assert.deepEqual(
      rows.map((r) => r.seq),
      s.events.map((e) => e.seq),
      'every event stored exactly once',
    );
    const h = await a.get('/agent/history/down');
    assert.equal(h.status, 200);
    assert.deepEqual(
      h.body.messages.map((m: { role: string }) => m.role),
      ['user', 'assistant'],
    );
    assert.equal(h.body.messages[1].content, s.events.find((e) => e.event === 'done')!.data.reply);
  });

  test('the database down: requests answer 503 database_unavailable with Retry-After (cookie and bearer)', async () => {
    const token = await a.post('/auth/tokens', { name: 'ops' });
    assert.equal(token.status, 201, token.text);
    const bearer = new Client(t.url);
    bearer.bearer = token.body.token;
    proxy.cut();
    try {
      for (const c of [a, bearer]) {
        const r = await c.get('/studio/api/projects');
        assert.equal(r.status, 503, r.text);
        assert.equal(r.body.code, 'database_unavailable');
        assert.equal(r.headers.get('retry-after'), '5');
        assert.ok(r.body.request_id);
      }
    } finally {
      proxy.restore();
    }
    assert.equal((await a.get('/studio/api/projects')).status, 200, 'served again once the database is back');
  });

  test('a frozen database (connections accepted, never answered): 503 within the pool timeouts, not a hang', async () => {
    proxy.freeze();
    try {
      const res = await fetch(`${t.url}/studio/api/projects`, {
        headers: { cookie: a.cookie! },
        signal: AbortSignal.timeout(20_000),
      });
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '5');
      assert.equal(((await res.json()) as { code: string }).code, 'database_unavailable');
    } finally {
      proxy.restore();
    }
    await until('served again', async () => (await a.get('/studio/api/projects')).status === 200);
  });
});
