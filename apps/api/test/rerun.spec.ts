/**
 * Rerun from a node (docs/API.md "Rerun from a node"): a finished two-agent-node turn is rerun from its
 * second node, without and with `restore_workspace`, against the scripted fake provider; the original's
 * history and file revisions stay as they were. Then the 404/409/400 cases.
 */
import assert from 'node:assert/strict';
import { Client as PgClient } from 'pg';
import { ADMIN, startApp, type TestApp } from './support/app';
import { FakeLlm } from './support/fake-llm';
import { Client, newUser } from './support/http';
import { bind } from './support/chat-pack';
import { readStream } from './support/sse';

const F = '/studio/api/projects/rr/files';

describe('rerun from a node', () => {
  let t: TestApp;
  let fake: FakeLlm;
  let a: Client;
  let direct: PgClient;
  let original: string;
  let packId: number;

  const finish = async (runId: string) => {
    const r = await readStream(`${t.url}/agent/runs/${runId}/stream`, { headers: { cookie: a.cookie! } });
    assert.equal(r.status, 200);
    return r.events;
  };
  const lastRequestText = () => JSON.stringify(fake.requests[fake.requests.length - 1].body);

  beforeAll(async () => {
    fake = await FakeLlm.start();
    t = await startApp();
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    direct = new PgClient({ connectionString: t.db.databaseUrl! });
    await direct.connect();
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
      tool_allowlist: ['read_file', 'write_file'],
    });
    const pack = await a.post('/studio/api/workflows', { name: 'Two nodes', domain: 'pdlc' });
    const id = agent.body.id;
    const g = await a.put(`/studio/api/workflows/${pack.body.id}/graph`, {
      nodes: [
        { node_key: 'first', type: 'agent', agent_id: id, stage_label: 'discover' },
        { node_key: 'second', type: 'agent', agent_id: id, stage_label: 'design' },
      ],
      edges: [
        { from_node: 'start', to_node: 'first' },
        { from_node: 'first', to_node: 'second' },
      ],
    });
    assert.equal(g.status, 200, g.text);
    packId = pack.body.id;
    await bind(a, 'rr', packId);
    // an earlier turn gives the history context; a user write gives keep.md its content before the run
    fake.enqueue({ text: 'earlier reply' });
    assert.equal((await a.post('/agent/chat', { message: 'earlier', project_slug: 'rr' })).status, 200);
    assert.equal((await a.put(`${F}/keep.md`, { content: 'v0' })).status, 200);
    // that turn walked both nodes (stage design): the turn to rerun starts at the first again
    await bind(a, 'rr', packId, 'discover');
    fake.enqueue(
      { tool_calls: [{ name: 'write_file', arguments: { path: 'keep.md', content: 'v1' } }] },
      { text: 'first done' },
      {
        tool_calls: [
          { name: 'write_file', arguments: { path: 'keep.md', content: 'v2' } },
          { name: 'write_file', arguments: { path: 'new.md', content: 'created' } },
        ],
      },
      { text: 'second done' },
    );
    const r = await a.post('/agent/chat', { message: 'go', project_slug: 'rr' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.stage, 'design');
    original = r.body.run_id;
    // a later turn: the rerun's context leaves it out
    fake.enqueue({ text: 'later reply' });
    assert.equal((await a.post('/agent/chat', { message: 'later', project_slug: 'rr' })).status, 200);
    await bind(a, 'rr', packId, 'discover');
  });
  afterAll(async () => {
    await direct?.end();
    await t.close();
    await fake.close();
  });

  test('without restore_workspace: a new run starts at the node with the original message and context', async () => {
    fake.enqueue({ text: 'again' });
    const r = await a.post(`/agent/runs/${original}/rerun`, { node_key: 'second' });
    assert.equal(r.status, 202, r.text);
    const runId = r.body.run_id;
    assert.notEqual(runId, original);
    const events = await finish(runId);
    const nodes = events.filter((e) => e.event === 'node').map((e) => (e.data as { node_key: string }).node_key);
    assert.deepEqual([...new Set(nodes)], ['second']);
    const sent = lastRequestText();
    assert.match(sent, /"go"/);
    assert.match(sent, /"earlier"/);
    assert.doesNotMatch(sent, /"later"|first done|second done/);
    const run = await a.get(`/agent/runs/${runId}`);
    assert.equal(run.body.state, 'done');
    assert.equal(run.body.rerun_of, original);
    expect(run.body.visited_nodes).toEqual(['second']);
    // the original lists the nodes it entered, in order: any of them can start a rerun
    expect((await a.get(`/agent/runs/${original}`)).body.visited_nodes).toEqual(['first', 'second']);
    assert.equal(run.body.stage, 'design');
    assert.equal((await a.get('/agent/workflows/rr')).body.stage, 'design');
    // files as the original left them
    assert.equal((await a.get(`${F}/keep.md`)).body.content, 'v2');
    assert.equal((await a.get(`${F}/new.md`)).body.content, 'created');
  });

  test('restore_workspace: files changed at or after the node get their earlier content as new revisions', async () => {
    fake.enqueue({ text: 'restored' });
    const r = await a.post(`/agent/runs/${original}/rerun`, {
      node_key: 'second',
      restore_workspace: true,
      message: 'try again',
    });
    assert.equal(r.status, 202, r.text);
    const runId = r.body.run_id;
    await finish(runId);
    assert.match(lastRequestText(), /try again/);
    assert.equal((await a.get(`${F}/keep.md`)).body.content, 'v1');
    assert.equal((await a.get(`${F}/new.md`)).status, 404);
    const keep = (await a.get(`${F}/keep.md/revisions`)).body as Array<{
      revision: number;
      change: string;
      run_id: string;
    }>;
    assert.deepEqual(
      keep.map((x) => [x.revision, x.change, x.run_id]),
      [
        [4, 'modified', runId],
        [3, 'modified', original],
        [2, 'modified', original],
        [1, 'added', null],
      ],
    );
    assert.equal((await a.get(`${F}/keep.md?revision=3`)).body.content, 'v2');
    const created = (await a.get(`${F}/new.md/revisions`)).body as Array<{ change: string; run_id: string }>;
    assert.deepEqual(
      created.map((x) => [x.change, x.run_id]),
      [
        ['deleted', runId],
        ['added', original],
      ],
    );
    // the original's history is intact
    const h = await a.get('/agent/history/rr?limit=200');
    const replies = h.body.messages.map((m: { content: string }) => m.content);
    assert.ok(replies.includes('second done'), replies.join('|'));
  });

  test('from the first node with restore_workspace: keep.md goes back to what it was before the run', async () => {
    fake.enqueue({ text: 'one' }, { text: 'two' });
    const r = await a.post(`/agent/runs/${original}/rerun`, { node_key: 'first', restore_workspace: true });
    assert.equal(r.status, 202, r.text);
    await finish(r.body.run_id);
    assert.equal((await a.get(`${F}/keep.md`)).body.content, 'v0');
  });

  test('400 for a node the run did not visit, 404 for another user, 409 for an unfinished run', async () => {
    const unknown = await a.post(`/agent/runs/${original}/rerun`, { node_key: 'nope' });
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal(unknown.body.errors[0].field, 'node_key');
    assert.equal((await a.post(`/agent/runs/${original}/rerun`, {})).status, 400);
    const bob = await newUser(t.url, a, 'bob');
    const other = await bob.post(`/agent/runs/${original}/rerun`, { node_key: 'second' });
    assert.equal(other.status, 404, other.text);
    assert.equal(
      (await a.post('/agent/runs/00000000-0000-4000-8000-000000000000/rerun', { node_key: 'x' })).status,
      404,
    );
    // a run a crash left interrupted can be resumed, not rerun
    await direct.query(`UPDATE runs SET state = 'interrupted' WHERE id = $1`, [original]);
    try {
      const busy = await a.post(`/agent/runs/${original}/rerun`, { node_key: 'second' });
      assert.equal(busy.status, 409, busy.text);
      assert.equal(busy.body.code, 'run.not_rerunnable');
    } finally {
      await direct.query(`UPDATE runs SET state = 'done' WHERE id = $1`, [original]);
    }
  });
});
