/**
 * Run inspection (docs/API.md "Runs"): GET /agent/runs/{id} shows one run — state, stage, node, usage,
 * error, attempts — and GET /agent/runs lists the caller's runs newest first, per project, paged; other
 * users' runs are 404 and never listed.
 */
import { DataSource } from 'typeorm';
import { ADMIN, startApp, type TestApp } from './support/app';
import { FakeLlm } from './support/fake-llm';
import { Client, newUser } from './support/http';
import { readStream } from './support/sse';

describe('runs', () => {
  let t: TestApp;
  let fake: FakeLlm;
  let a: Client;
  let b: Client;
  let packId: number;

  beforeAll(async () => {
    fake = await FakeLlm.start();
    t = await startApp({
      config: { llm: { provider: 'custom', model: 'fake', apiBase: fake.openaiBase, apiKey: 'sk-x' } },
    });
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    b = await newUser(t.url, a, 'runs-other');
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
    const pack = await a.post('/studio/api/workflows', { name: 'Runs pack', domain: 'pdlc' });
    const g = await a.put(`/studio/api/workflows/${pack.body.id}/graph`, {
      nodes: [{ node_key: 'write', type: 'agent', agent_id: agent.body.id, stage_label: 'discover' }],
      edges: [{ from_node: 'start', to_node: 'write' }],
    });
    expect(g.status).toBe(200);
    packId = pack.body.id;
    for (const slug of ['one', 'two']) {
      expect(
        (await a.put(`/agent/workflows/${slug}`, { domain: 'pdlc', stage: 'discover', pack_id: packId })).status,
      ).toBe(200);
    }
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  test('a finished run shows its state, node, usage and attempts; another user gets 404', async () => {
    fake.enqueue({ text: 'hello there' });
    const chat = await a.post('/agent/chat', { project_slug: 'one', message: 'hi' });
    expect(chat.status).toBe(200);
    const r = await a.get(`/agent/runs/${chat.body.run_id}`);
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(chat.body.run_id);
    expect(r.body.state).toBe('done');
    expect(r.body.mode).toBe('chat');
    expect(r.body.project_slug).toBe('one');
    expect(r.body.pack_id).toBe(packId);
    expect(r.body.stage).toBe('discover');
    expect(r.body.node_key).toBe('write');
    expect(r.body.usage).toEqual(chat.body.usage);
    expect(r.body.error).toBe(null);
    expect(r.body.attempts).toBe(1);
    expect(r.body.last_seq).toBeGreaterThan(2);
    expect(r.body.finished_at && Date.parse(r.body.finished_at) >= Date.parse(r.body.created_at)).toBeTruthy();
    expect('owner_id' in r.body).toBe(false);
    expect((await b.get(`/agent/runs/${chat.body.run_id}`)).status).toBe(404);
    expect((await a.get('/agent/runs/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await a.get('/agent/runs/not-a-run')).status).toBe(404);
  });

  test('a failed run shows its error; a streamed run its mode', async () => {
    fake.enqueue({ status: 400 });
    const chat = await a.post('/agent/chat', { project_slug: 'two', message: 'fail please' });
    expect(chat.status).toBeGreaterThanOrEqual(400);
    const listed = await a.get('/agent/runs?project_slug=two&limit=1');
    expect(listed.status).toBe(200);
    const failed = listed.body.runs[0];
    expect(failed.state).toBe('error');
    expect(failed.error.code).toBeTruthy();
    fake.enqueue({ text: 'streamed' });
    const s = await readStream(`${t.url}/agent/stream?project_slug=two&message=again`, {
      headers: { cookie: a.cookie! },
    });
    const runId = s.events[0].id.split(':')[0];
    const r = await a.get(`/agent/runs/${runId}`);
    expect(r.body.mode).toBe('stream');
    expect(r.body.state).toBe('done');
    expect(r.body.last_seq).toBe(s.events.at(-1)!.seq);
  });

  test('the list is newest first, per project, paged with before; it shows only the caller’s runs', async () => {
    for (const m of ['p1', 'p2', 'p3']) {
      fake.enqueue({ text: `reply ${m}` });
      expect((await a.post('/agent/chat', { project_slug: 'one', message: m })).status).toBe(200);
    }
    const all = await a.get('/agent/runs?project_slug=one');
    expect(all.status).toBe(200);
    expect(all.body.runs.length).toBe(4);
    expect(all.body.runs.every((r: { project_slug: string }) => r.project_slug === 'one')).toBeTruthy();
    const times = all.body.runs.map((r: { created_at: string }) => Date.parse(r.created_at));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    expect(all.body.next_before).toBe(null);

    const page1 = await a.get('/agent/runs?project_slug=one&limit=3');
    expect(page1.body.runs.length).toBe(3);
    expect(page1.body.next_before).toBe(page1.body.runs[2].id);
    const page2 = await a.get(`/agent/runs?project_slug=one&limit=3&before=${page1.body.next_before}`);
    expect(page2.body.runs.map((r: { id: string }) => r.id)).toEqual([all.body.runs[3].id]);
    expect(page2.body.next_before).toBe(null);

    const mine = await a.get('/agent/runs');
    expect(mine.body.runs.length).toBeGreaterThanOrEqual(6);
    const theirs = await b.get('/agent/runs');
    expect(theirs.body.runs).toEqual([]);
    expect((await b.get('/agent/runs?project_slug=one')).status).toBe(404);
    for (const bad of ['limit=0', 'limit=201', 'limit=x', 'before=nope', 'project_slug=Bad!', 'other=1']) {
      const r = await a.get(`/agent/runs?${bad}`);
      expect(r.status).toBe(400);
    }
    expect((await new Client(t.url).get('/agent/runs')).status).toBe(401);
  });

  test('the reply is stored once: the stored done leaves it out, a replay from the database puts it back', async () => {
    fake.enqueue({ text: 'a reply worth keeping once' });
    const live = await readStream(`${t.url}/agent/stream?project_slug=one&message=once`, {
      headers: { cookie: a.cookie! },
    });
    const runId = live.events[0].id.split(':')[0];
    const liveDone = live.events.find((e) => e.event === 'done')!;
    expect(liveDone.data.reply).toBe('a reply worth keeping once');
    const ds = t.created.app.get(DataSource);
    const [stored] = await ds.query(`SELECT data FROM run_events WHERE run_id = $1 AND event = 'done'`, [runId]);
    expect(stored.data).not.toHaveProperty('reply');
    expect(stored.data.state).toBe('done');
    // the run has left the process's memory only after a linger; a new app on the same database has none
    const other = await startApp({
      db: t.db,
      config: { llm: { provider: 'custom', model: 'fake', apiBase: fake.openaiBase, apiKey: 'sk-x' } },
    });
    try {
      const again = new Client(other.url);
      await again.login(ADMIN.username, ADMIN.password);
      const replay = await readStream(`${other.url}/agent/stream`, {
        headers: { cookie: again.cookie!, 'last-event-id': `${runId}:0` },
      });
      expect(replay.events.map((e) => e.seq)).toEqual(live.events.map((e) => e.seq));
      expect(replay.events.find((e) => e.event === 'done')!.data).toEqual(liveDone.data);
    } finally {
      await other.stop();
    }
  });
});
