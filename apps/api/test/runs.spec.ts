/**
 * Run inspection (docs/API.md "Runs"): GET /agent/runs/{id} shows one run — state, stage, node, usage,
 * error, attempts — and GET /agent/runs lists the caller's runs newest first, per project, paged; other
 * users' runs are 404 and never listed.
 */
import assert from 'node:assert/strict';
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
    assert.equal(g.status, 200, g.text);
    packId = pack.body.id;
    for (const slug of ['one', 'two']) {
      assert.equal(
        (await a.put(`/agent/workflows/${slug}`, { domain: 'pdlc', stage: 'discover', pack_id: packId })).status,
        200,
      );
    }
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  test('a finished run shows its state, node, usage and attempts; another user gets 404', async () => {
    fake.enqueue({ text: 'hello there' });
    const chat = await a.post('/agent/chat', { project_slug: 'one', message: 'hi' });
    assert.equal(chat.status, 200, chat.text);
    const r = await a.get(`/agent/runs/${chat.body.run_id}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.id, chat.body.run_id);
    assert.equal(r.body.state, 'done');
    assert.equal(r.body.mode, 'chat');
    assert.equal(r.body.project_slug, 'one');
    assert.equal(r.body.pack_id, packId);
    assert.equal(r.body.stage, 'discover');
    assert.equal(r.body.node_key, 'write');
    assert.deepEqual(r.body.usage, chat.body.usage);
    assert.equal(r.body.error, null);
    assert.equal(r.body.attempts, 1);
    assert.ok(r.body.last_seq > 2);
    assert.ok(r.body.finished_at && Date.parse(r.body.finished_at) >= Date.parse(r.body.created_at));
    assert.equal('owner_id' in r.body, false);
    assert.equal((await b.get(`/agent/runs/${chat.body.run_id}`)).status, 404);
    assert.equal((await a.get('/agent/runs/00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await a.get('/agent/runs/not-a-run')).status, 404);
  });

  test('a failed run shows its error; a streamed run its mode', async () => {
    fake.enqueue({ status: 400 });
    const chat = await a.post('/agent/chat', { project_slug: 'two', message: 'fail please' });
    assert.ok(chat.status >= 400, chat.text);
    const listed = await a.get('/agent/runs?project_slug=two&limit=1');
    assert.equal(listed.status, 200, listed.text);
    const failed = listed.body.runs[0];
    assert.equal(failed.state, 'error');
    assert.ok(failed.error.code, JSON.stringify(failed));
    fake.enqueue({ text: 'streamed' });
    const s = await readStream(`${t.url}/agent/stream?project_slug=two&message=again`, {
      headers: { cookie: a.cookie! },
    });
    const runId = s.events[0].id.split(':')[0];
    const r = await a.get(`/agent/runs/${runId}`);
    assert.equal(r.body.mode, 'stream');
    assert.equal(r.body.state, 'done');
    assert.equal(r.body.last_seq, s.events.at(-1)!.seq);
  });

  test('the list is newest first, per project, paged with before; it shows only the caller’s runs', async () => {
    for (const m of ['p1', 'p2', 'p3']) {
      fake.enqueue({ text: `reply ${m}` });
      assert.equal((await a.post('/agent/chat', { project_slug: 'one', message: m })).status, 200);
    }
    const all = await a.get('/agent/runs?project_slug=one');
    assert.equal(all.status, 200);
    assert.equal(all.body.runs.length, 4);
    assert.ok(all.body.runs.every((r: { project_slug: string }) => r.project_slug === 'one'));
    const times = all.body.runs.map((r: { created_at: string }) => Date.parse(r.created_at));
    assert.deepEqual(
      times,
      [...times].sort((x, y) => y - x),
      'newest first',
    );
    assert.equal(all.body.next_before, null);

    const page1 = await a.get('/agent/runs?project_slug=one&limit=3');
    assert.equal(page1.body.runs.length, 3);
    assert.equal(page1.body.next_before, page1.body.runs[2].id);
    const page2 = await a.get(`/agent/runs?project_slug=one&limit=3&before=${page1.body.next_before}`);
    assert.deepEqual(
      page2.body.runs.map((r: { id: string }) => r.id),
      [all.body.runs[3].id],
    );
    assert.equal(page2.body.next_before, null);

    const mine = await a.get('/agent/runs');
    assert.ok(mine.body.runs.length >= 6);
    const theirs = await b.get('/agent/runs');
    assert.deepEqual(theirs.body.runs, []);
    assert.equal((await b.get('/agent/runs?project_slug=one')).status, 404, "another user's project is not found");
    for (const bad of ['limit=0', 'limit=201', 'limit=x', 'before=nope', 'project_slug=Bad!', 'other=1']) {
      const r = await a.get(`/agent/runs?${bad}`);
      assert.equal(r.status, 400, bad);
    }
    assert.equal((await new Client(t.url).get('/agent/runs')).status, 401);
  });
});
