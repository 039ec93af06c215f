/**
 * The runtime over HTTP around the turns: the demo, turn limits and failures, recovery of runs after a
 * restart, and stream heartbeats — against a fake OpenAI-compatible server on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ADMIN, createTestDb, startApp, type TestApp } from './support/app';
import { FakeLlm } from './support/fake-llm';
import { Client } from './support/http';
import { bind, setupPack } from './support/chat-pack';
import { names, readStream, type SseEvent } from './support/sse';

function assertContiguous(events: SseEvent[]) {
  events.forEach((e, i) => assert.equal(e.seq, i + 1, `seq ${e.seq} at ${i}`));
  const runIds = new Set(events.map((e) => e.id.split(':')[0]));
  assert.equal(runIds.size, 1);
}

describe('demo', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { demoLimitPerMinute: 8 } });
  });
  afterAll(() => t.close());

  test('works without login on a read-only sample and refuses extra fields', async () => {
    const c = new Client(t.url);
    const r = await c.post('/agent/demo', { message: 'What should we build?', stage: 'discover' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.provider, 'offline');
    assert.equal(r.body.domain, 'pdlc');
    assert.equal(r.body.stage, 'discover');
    assert.match(r.body.reply, /No language model is configured/);
    assert.ok(r.body.tool_calls.some((x: { name: string; ok: boolean }) => x.name === 'list_files' && x.ok));
    assert.ok(
      !r.body.tool_calls.some((x: { name: string }) => x.name === 'write_file'),
      'no writing tools on a read-only workspace',
    );
    for (const extra of [
      { agent_id: 1 },
      { system_prompt: 'obey me' },
      { model: 'x' },
      { graph: {} },
      { project_slug: 'x' },
    ]) {
      assert.equal((await c.post('/agent/demo', { message: 'x', ...extra })).status, 400, JSON.stringify(extra));
    }
  });

  test('the anonymous stream is a demo run', async () => {
    const s = await readStream(`${t.url}/agent/stream?message=hi&stage=design`);
    assert.equal(s.status, 200);
    assert.equal(s.events[0].event, 'status');
    assert.equal(s.events.find((e) => e.event === 'workflow')!.data.stage, 'design');
    assert.equal(s.events.at(-1)!.event, 'close');
  });

  test('demo turns are rate limited per client', async () => {
    // earlier tests in this block already spent part of the budget of 8 per minute
    const c = new Client(t.url);
    let limited = await c.post('/agent/demo', { message: 'more' });
    let ok = 0;
    while (limited.status === 200 && ok < 8) {
      ok++;
      limited = await c.post('/agent/demo', { message: 'more' });
    }
    assert.equal(limited.status, 429, `after ${ok} more: ${limited.text}`);
    assert.ok(ok < 8, 'the limit applies across demo requests');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal(
      (await readStream(`${t.url}/agent/stream?message=x`)).status,
      429,
      'the anonymous stream shares the limit',
    );
  });

  test('status carries no secrets', async () => {
    const s = await new Client(t.url).get('/agent/status');
    assert.deepEqual(Object.keys(s.body).sort(), ['configured', 'demo', 'model', 'provider', 'version']);
    assert.equal(s.body.demo, true);
  });
});

describe('limits and failures', () => {
  let t: TestApp;
  let fake: FakeLlm;
  let a: Client;
  let packId: number;
  beforeAll(async () => {
    fake = await FakeLlm.start();
    t = await startApp({ config: { turnTimeoutMs: 1500, maxStreamsPerUser: 2, vendorAKey: 'sk-server-secret-a' } });
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    packId = (await setupPack(a, fake)).packId;
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  test('a hanging provider is stopped by the turn time limit', async () => {
    await bind(a, 'hang', packId);
    fake.enqueue({ hang: true });
    const s = await readStream(`${t.url}/agent/stream?message=x&project_slug=hang`, { headers: { cookie: a.cookie! } });
    assert.equal(s.events.find((e) => e.event === 'error')!.data.code, 'turn_timeout');
    assert.equal(s.events.at(-1)!.event, 'close');
  });

  test('concurrent streams per user are capped (429)', async () => {
    // one running turn per project: each stream on a project of its own
    for (const slug of ['cap0', 'cap1', 'cap2']) await bind(a, slug, packId);
    fake.enqueue({ tokens: 100, tokenIntervalMs: 10 }, { tokens: 100, tokenIntervalMs: 10 });
    const open: Array<Promise<unknown>> = [];
    let started = 0;
    for (let i = 0; i < 2; i++) {
      open.push(
        readStream(`${t.url}/agent/stream?message=x&project_slug=cap${i}`, {
          headers: { cookie: a.cookie! },
          onEvent: (e) => void (e.event === 'status' && started++),
        }),
      );
    }
    for (const end = Date.now() + 30_000; started < 2; await new Promise((r) => setTimeout(r, 20))) {
      if (Date.now() > end) throw new Error('the two streams did not start within 30 s');
    }
    const third = await readStream(`${t.url}/agent/stream?message=x&project_slug=cap2`, {
      headers: { cookie: a.cookie! },
    });
    assert.equal(third.status, 429);
    await Promise.all(open);
  });

  test('a client that disconnects releases its stream slot; the run goes on to the end', async () => {
    for (const slug of ['drop0', 'drop1', 'drop2']) await bind(a, slug, packId);
    fake.enqueue({ tokens: 30, tokenIntervalMs: 10 }, { tokens: 30, tokenIntervalMs: 10 });
    const runIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      await readStream(`${t.url}/agent/stream?message=x&project_slug=drop${i}`, {
        headers: { cookie: a.cookie! },
        onEvent: (e) => (e.event === 'status' ? (runIds.push(e.data.run_id), true) : false),
      });
    }
    fake.enqueue({ text: 'third' });
    const third = await readStream(`${t.url}/agent/stream?message=x&project_slug=drop2`, {
      headers: { cookie: a.cookie! },
    });
    assert.equal(third.status, 200, 'slots were released on disconnect');
    for (const id of runIds) {
      const replay = await readStream(`${t.url}/agent/stream?last_event_id=${id}:0`, {
        headers: { cookie: a.cookie! },
      });
      assert.equal(
        replay.events.find((e) => e.event === 'done')!.data.state,
        'done',
        'the run finished without its client',
      );
    }
  });

  test('status never shows a key', async () => {
    const s = await new Client(t.url).get('/agent/status');
    assert.ok(!s.text.includes('sk-server-secret-a'));
    assert.equal(s.body.configured.vendor_a, true);
  });
});

describe('restart recovery', () => {
  test('runs left in flight by a crash are marked interrupted and their stream ends cleanly', async () => {
    const db = await createTestDb();
    const first = await startApp({ db });
    const a = new Client(first.url);
    await a.login(ADMIN.username, ADMIN.password);
    const me = (await a.get('/auth/me')).body;
    const ds = first.created.app.get(DataSource);
    await a.put('/agent/workflows/crashy', {
      domain: 'pdlc',
      stage: 'discover',
      pack_id: (await a.get('/agent/workflows')).body.workflows[0].pack_id,
    });
    const project = (await a.get('/studio/api/projects/crashy')).body;
    const runId = randomUUID();
    await ds.query(
      `INSERT INTO runs (id, owner_id, project_id, mode, state, stage) VALUES ($1, $2, $3, 'stream', 'running', 'discover')`,
      [runId, me.id, project.id],
    );
    await ds.query(
      `INSERT INTO run_events (run_id, seq, event, data) VALUES ($1, 1, 'status', '{"state":"running"}'), ($1, 2, 'pack', '{}')`,
      [runId],
    );
    await first.stop();
    const second = await startApp({ db });
    try {
      const c = new Client(second.url);
      c.cookie = a.cookie;
      const rows = await second.created.app.get(DataSource).query('SELECT state FROM runs WHERE id = $1', [runId]);
      assert.equal(rows[0].state, 'interrupted');
      const s = await readStream(`${second.url}/agent/stream`, {
        headers: { cookie: c.cookie!, 'last-event-id': `${runId}:1` },
      });
      assert.deepEqual(names(s.events), ['pack', 'error', 'done', 'close']);
      assert.equal(s.events[1].data.code, 'interrupted');
      const h = await c.get('/agent/history/crashy');
      assert.match(h.body.messages.at(-1).content, /interrupted/);
    } finally {
      await second.close();
    }
  });
});

describe('stream heartbeats', () => {
  let t: TestApp;
  let fake: FakeLlm;
  let a: Client;

  beforeAll(async () => {
    fake = await FakeLlm.start();
    t = await startApp({ config: { heartbeatMs: 50 } });
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  test('a quiet stream gets keepalive comments, then every event as usual', async () => {
    const { packId } = await setupPack(a, fake);
    await bind(a, 'quiet', packId);
    fake.enqueue({ text: 'late but here', ttftMs: 600 });
    const s = await readStream(`${t.url}/agent/stream?message=x&project_slug=quiet`, {
      headers: { cookie: a.cookie! },
    });
    assert.ok(s.comments >= 3, `expected keepalive comments while the model was silent, got ${s.comments}`);
    assert.equal(s.events.find((e) => e.event === 'done')!.data.reply, 'late but here');
    assert.equal(s.events.at(-1)!.event, 'close');
    assertContiguous(s.events);
  });
});
