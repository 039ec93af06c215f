/**
 * Turn admission (docs/API.md "Turns"): one running turn per project (409 turn_in_progress naming it, on
 * chat, stream and advance), a cap on running turns per user and on demo turns per client (429 with
 * Retry-After), and stage moves serialised under concurrent advances — through real concurrent requests.
 */
import assert from 'node:assert/strict';
import { ADMIN, startApp, type TestApp } from './support/app';
import { FakeLlm } from './support/fake-llm';
import { Client, newUser } from './support/http';
import { names, readStream } from './support/sse';

const MAX_RUNS = 2;

describe('turn admission', () => {
  let t: TestApp;
  let fake: FakeLlm;
  let a: Client;
  let packId: number;
  let systemPack: number;

  beforeAll(async () => {
    fake = await FakeLlm.start({ defaultTurn: { hang: true } });
    t = await startApp({
      config: {
        maxRunsPerUser: MAX_RUNS,
        maxDemoRunsPerClient: 2,
        maxStreamsPerUser: 20,
        llm: { provider: 'custom', model: 'fake', apiBase: fake.openaiBase, apiKey: 'sk-x' },
      },
    });
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    const model = await a.post('/studio/api/models', {
      label: 'Fake',
      provider: 'custom',
      model_id: 'fake-1',
      api_base: fake.openaiBase,
      api_key: 'sk-user-key',
    });
    const agent = await a.post('/studio/api/agents', {
      name: 'Scribe',
      role: 'writer',
      model_id: model.body.id,
      tool_allowlist: [],
    });
    const pack = await a.post('/studio/api/workflows', { name: 'Hang pack', domain: 'pdlc' });
    const g = await a.put(`/studio/api/workflows/${pack.body.id}/graph`, {
      nodes: [{ node_key: 'write', type: 'agent', agent_id: agent.body.id, stage_label: 'discover' }],
      edges: [{ from_node: 'start', to_node: 'write' }],
    });
    assert.equal(g.status, 200, g.text);
    packId = pack.body.id;
    systemPack = (await a.get('/agent/workflows')).body.workflows.find(
      (w: { slug: string }) => w.slug === 'pdlc',
    ).pack_id;
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const bind = async (c: Client, slug: string, pack = packId) =>
    assert.equal(
      (await c.put(`/agent/workflows/${slug}`, { domain: 'pdlc', stage: 'discover', pack_id: pack })).status,
      200,
    );
  /** Starts a turn on a stream and returns once its first event names the run (the model then hangs). */
  const startHanging = async (c: Client, slug: string) => {
    const s = await readStream(`${t.url}/agent/stream?project_slug=${slug}&message=hi`, {
      headers: { cookie: c.cookie! },
      stopAfter: 1,
    });
    return { status: s.status, body: s.body, runId: s.events[0]?.id.split(':')[0] };
  };
  /** Cancels a run and reads its log to `close`, so it has ended when this returns. */
  const stop = async (c: Client, runId: string) => {
    assert.equal((await c.post(`/agent/runs/${runId}/cancel`)).status, 202);
    const rest = await readStream(`${t.url}/agent/stream`, {
      headers: { cookie: c.cookie!, 'last-event-id': `${runId}:0` },
    });
    assert.equal(names(rest.events).at(-1), 'close');
  };

  test('a message while the project runs a turn is 409 turn_in_progress naming the run: chat, stream, advance', async () => {
    await bind(a, 'busy');
    const first = await startHanging(a, 'busy');
    assert.equal(first.status, 200);
    const chat = await a.post('/agent/chat', { project_slug: 'busy', message: 'again' });
    assert.equal(chat.status, 409, chat.text);
    assert.equal(chat.body.code, 'turn_in_progress');
    assert.equal(chat.body.run_id, first.runId);
    assert.match(chat.body.detail, new RegExp(first.runId));
    const stream = await readStream(`${t.url}/agent/stream?project_slug=busy&message=again`, {
      headers: { cookie: a.cookie! },
    });
    assert.equal(stream.status, 409);
    assert.equal(stream.body.run_id, first.runId);
    const advance = await a.post('/agent/chat', { project_slug: 'busy', advance: true });
    assert.equal(advance.status, 409);
    assert.equal(advance.body.code, 'turn_in_progress');
    const history = (await a.get('/agent/history/busy')).body.messages;
    assert.deepEqual(
      history.map((m: { content: string }) => m.content),
      ['hi'],
      'the refused messages are not recorded',
    );

    await stop(a, first.runId);
    fake.enqueue({ text: 'now it is free' });
    const after = await a.post('/agent/chat', { project_slug: 'busy', message: 'again' });
    assert.equal(after.status, 200, after.text);
    assert.equal(after.body.reply, 'now it is free');
  });

  test('six concurrent streams on one project: exactly one turn runs', async () => {
    await bind(a, 'race');
    const all = await Promise.all(Array.from({ length: 6 }, () => startHanging(a, 'race')));
    const ok = all.filter((r) => r.status === 200);
    assert.equal(ok.length, 1, JSON.stringify(all.map((r) => r.status)));
    for (const r of all.filter((x) => x.status !== 200)) {
      assert.equal(r.status, 409);
      assert.equal(r.body.run_id, ok[0].runId);
    }
    await stop(a, ok[0].runId);
  });

  test(`running turns per user are capped at MAX_RUNS_PER_USER (${MAX_RUNS}), concurrently too: 429 with Retry-After`, async () => {
    const c = await newUser(t.url, a, 'capped');
    const slugs = ['p1', 'p2', 'p3', 'p4', 'p5'];
    for (const s of [...slugs, 'p6']) await bind(c, s, systemPack);
    const all = await Promise.all(slugs.map((s) => startHanging(c, s)));
    const ok = all.filter((r) => r.status === 200);
    assert.equal(ok.length, MAX_RUNS, JSON.stringify(all.map((r) => r.status)));
    for (const r of all.filter((x) => x.status !== 200)) {
      assert.equal(r.status, 429);
      assert.equal(r.body.code, 'runs.too_many');
    }
    const sync = await c.post('/agent/chat', { project_slug: 'p6', message: 'one more' });
    assert.equal(sync.status, 429);
    assert.equal(sync.headers.get('retry-after'), '5');
    const other = await startHanging(a, 'busy');
    assert.equal(other.status, 200, 'another user is not affected');
    await stop(a, other.runId);

    await stop(c, ok[0].runId);
    fake.enqueue({ text: 'room again' });
    const free = await c.post('/agent/chat', { project_slug: 'p6', message: 'one more' });
    assert.equal(free.status, 200, free.text);
    await stop(c, ok[1].runId);
  });

  test('demo turns are capped per client: 429 with Retry-After beyond MAX_DEMO_RUNS_PER_CLIENT', async () => {
    const anon = (n: number) => readStream(`${t.url}/agent/stream?message=demo${n}`, { stopAfter: 1 });
    const all = await Promise.all([1, 2, 3, 4].map(anon));
    assert.deepEqual(all.map((r) => r.status).sort(), [200, 200, 429, 429]);
    const refused = all.find((r) => r.status === 429)!;
    assert.equal(refused.body.code, 'runs.too_many');
    assert.equal(refused.headers.get('retry-after'), '5');
    const sync = await new Client(t.url).post('/agent/demo', { message: 'and sync' });
    assert.equal(sync.status, 429);
  });

  test('five concurrent advances move the project exactly one stage per accepted advance', async () => {
    const c = await newUser(t.url, a, 'mover');
    await bind(c, 'steps', systemPack);
    const all = await Promise.all(
      Array.from({ length: 5 }, () => c.post('/agent/chat', { project_slug: 'steps', advance: true })),
    );
    const accepted = all.filter((r) => r.status === 200);
    assert.ok(accepted.length >= 1);
    for (const r of all)
      assert.ok(r.status === 200 || (r.status === 409 && r.body.code === 'turn_in_progress'), r.text);
    const stages = ['discover', 'design', 'develop', 'test', 'deploy', 'iterate'];
    const state = (await c.get('/agent/workflows/steps')).body;
    assert.equal(state.stage, stages[accepted.length], JSON.stringify(all.map((r) => r.status)));
    assert.deepEqual(
      accepted.map((r) => r.body.stage).sort(),
      stages.slice(1, accepted.length + 1).sort(),
      'each accepted advance made its own move',
    );
  });
});
