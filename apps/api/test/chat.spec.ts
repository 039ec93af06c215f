/**
 * The runtime over HTTP: sync chat, the SSE stream (order, resume, cancel), re-attaching, gates,
 * branches, graph edits between turns and history paging — through the real SDKs against a fake
 * OpenAI-compatible server on 127.0.0.1. (Replies and failures: chat-replies.spec.ts; demo, limits,
 * restart recovery and heartbeats: chat-demo-recovery.spec.ts.)
 */
import assert from 'node:assert/strict';
import { ADMIN, startApp, type TestApp } from './support/app';
import { FakeLlm } from './support/fake-llm';
import { Client, newUser } from './support/http';
import { bind, setupPack } from './support/chat-pack';
import { names, readStream, type SseEvent } from './support/sse';

function assertContiguous(events: SseEvent[]) {
  events.forEach((e, i) => assert.equal(e.seq, i + 1, `seq ${e.seq} at ${i}`));
  const runIds = new Set(events.map((e) => e.id.split(':')[0]));
  assert.equal(runIds.size, 1);
}

describe('chat and stream', () => {
  let t: TestApp;
  let fake: FakeLlm;
  let a: Client;
  let b: Client;
  let packId: number;
  const stream = (q: string, c: Client | null = a, extra: Parameters<typeof readStream>[1] = {}) =>
    readStream(`${t.url}/agent/stream?${q}`, {
      ...extra,
      headers: { ...(c?.cookie ? { cookie: c.cookie } : {}), ...extra.headers },
    });

  beforeAll(async () => {
    fake = await FakeLlm.start();
    t = await startApp();
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    b = await newUser(t.url, a, 'bob');
    packId = (await setupPack(a, fake)).packId;
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  test('sync chat: the model writes a file then answers; history, files and the gate are recorded', async () => {
    await bind(a, 'sync', packId);
    fake.enqueue(
      { tool_calls: [{ name: 'write_file', arguments: { path: 'docs/notes.md', content: 'hello notes' } }] },
      { text: 'Done writing.' },
    );
    const r = await a.post('/agent/chat', { message: 'write notes', project_slug: 'sync' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.reply, 'Done writing.');
    assert.equal(r.body.project_slug, 'sync');
    assert.equal(r.body.pack_id, packId);
    assert.equal(r.body.node_key, 'gate1');
    assert.equal(r.body.agent.name, 'Scribe');
    assert.deepEqual(r.body.tool_calls, [
      { name: 'write_file', arguments: { path: 'docs/notes.md', content: 'hello notes' }, ok: true },
    ]);
    assert.deepEqual(r.body.files_changed, [
      { path: 'docs/notes.md', change: 'added' },
      { path: 'docs/out.md', change: 'added' },
    ]);
    assert.deepEqual(r.body.awaiting_gate, { node_key: 'gate1', stage: 'discover', next_stage: 'design' });
    assert.ok(r.body.usage.output_tokens > 0);
    assert.equal((await a.get('/studio/api/projects/sync/files/docs/notes.md')).body.content, 'hello notes');
    assert.equal(
      (await a.get('/studio/api/projects/sync/files/docs/out.md')).body.content,
      'Done writing.',
      'the artifact holds the reply',
    );
    const second = fake.requests[fake.requests.length - 1].body;
    const toolMsg = second.messages.find((m: { role: string }) => m.role === 'tool');
    assert.ok(toolMsg && toolMsg.tool_call_id, 'the tool result went back to the model');
    assert.ok(!JSON.stringify(second).includes('sk-server'), 'no server key');
    const h = await a.get('/agent/history/sync');
    assert.deepEqual(
      h.body.messages.map((m: { role: string }) => m.role),
      ['user', 'assistant'],
    );
    assert.equal(h.body.messages[1].tool_calls[0].name, 'write_file');
    assert.equal(h.body.messages[1].run_id, r.body.run_id);
    assert.equal(
      h.body.messages[1].node_key,
      'write',
      'the reply is credited to the agent node, not the gate that stopped the turn',
    );
    assert.equal(h.body.messages[1].state, 'done');
    assert.equal(h.body.messages[1].error, null);
    assert.equal(h.body.next_before, null);
    const state = await a.get('/agent/workflows/sync');
    assert.deepEqual(state.body.awaiting_gate, { node_key: 'gate1', stage: 'discover', next_stage: 'design' });
  });

  test('stream: the exact event order, ids <run_id>:<seq>, headers', async () => {
    await bind(a, 'order', packId);
    fake.enqueue(
      { tool_calls: [{ name: 'write_file', arguments: { path: 'a.md', content: 'x' } }] },
      { text: 'All done here.' },
    );
    const s = await stream('message=go&project_slug=order');
    assert.equal(s.status, 200);
    assert.match(s.headers.get('cache-control') ?? '', /no-cache/);
    assert.equal(s.headers.get('x-accel-buffering'), 'no');
    assertContiguous(s.events);
    const seq = names(s.events).filter((n, i, all) => !(n === 'content' && all[i - 1] === 'content'));
    assert.deepEqual(seq, [
      'status',
      'pack',
      'workflow',
      'node',
      'agent',
      'tool_call',
      'tool_result',
      'files_changed',
      'content',
      'files_changed',
      'node',
      'node',
      'node',
      'awaiting_gate',
      'workflow',
      'done',
      'close',
    ]);
    const content = s.events
      .filter((e) => e.event === 'content')
      .map((e) => e.data.delta)
      .join('');
    assert.equal(content, 'All done here.');
    assert.equal(s.events[0].data.state, 'running');
    assert.deepEqual(
      [s.events[0].data.provider, s.events[0].data.model],
      ['custom', 'fake-1'],
      'status names the model the agent runs on, not the server default',
    );
    assert.equal(s.events.at(-2)!.data.state, 'done');
    assert.deepEqual(s.events.at(-1)!.data, {});
  });

  test('Last-Event-ID: a dropped stream resumes with no event lost or repeated', async () => {
    await bind(a, 'resume', packId);
    fake.enqueue({ tokens: 40, tokenIntervalMs: 15 });
    const first = await stream('message=long&project_slug=resume', a, { stopAfter: 8 });
    assert.equal(first.events.length, 8);
    const lastId = first.events.at(-1)!.id;
    const rest = await readStream(`${t.url}/agent/stream`, { headers: { cookie: a.cookie!, 'last-event-id': lastId } });
    const all = [...first.events, ...rest.events];
    assertContiguous(all);
    assert.equal(all.at(-1)!.event, 'close');
    // after the run is over, a replay from the database gives the same events
    const replay = await readStream(`${t.url}/agent/stream?last_event_id=${encodeURIComponent(all[2].id)}`, {
      headers: { cookie: a.cookie! },
    });
    assert.deepEqual(
      replay.events.map((e) => e.seq),
      all.slice(3).map((e) => e.seq),
    );
    // another user cannot resume it
    const other = await readStream(`${t.url}/agent/stream`, {
      headers: { cookie: b.cookie!, 'last-event-id': lastId },
    });
    assert.equal(other.status, 404);
  });

  test('cancel stops a running turn; then 409; another user gets 404', async () => {
    await bind(a, 'cancel', packId);
    fake.enqueue({ tokens: 400, tokenIntervalMs: 20 });
    let runId = '';
    let cancelled = false;
    const s = await stream('message=slow&project_slug=cancel', a, {
      onEvent: (e) => {
        if (e.event === 'status') runId = e.data.run_id;
        if (e.event === 'content' && !cancelled) {
          cancelled = true;
          assert.ok(runId);
          void b.post(`/agent/runs/${runId}/cancel`).then((r) => assert.equal(r.status, 404));
          void a.post(`/agent/runs/${runId}/cancel`).then((r) => assert.equal(r.status, 202));
        }
      },
    });
    const tail = names(s.events).slice(-4);
    assert.deepEqual(tail, ['error', 'workflow', 'done', 'close']);
    assert.equal(s.events.find((e) => e.event === 'error')!.data.code, 'cancelled');
    assert.equal(s.events.find((e) => e.event === 'done')!.data.state, 'cancelled');
    assert.ok(s.events.filter((e) => e.event === 'content').length < 200, 'stopped early');
    assert.equal((await a.post(`/agent/runs/${runId}/cancel`)).status, 409);
    // the stopped turn stays in history with its partial reply, marked stopped, credited to the agent node
    const partial = s.events
      .filter((e) => e.event === 'content')
      .map((e) => e.data.delta)
      .join('');
    assert.ok(partial.length > 0);
    assert.equal(s.events.find((e) => e.event === 'done')!.data.reply, partial);
    const h = await a.get('/agent/history/cancel');
    const last = h.body.messages.at(-1);
    assert.deepEqual(
      [last.role, last.state, last.content, last.node_key, last.error.code],
      ['assistant', 'stopped', partial, 'write', 'cancelled'],
    );
    assert.equal(h.body.messages.at(-2).state, 'done', 'a user message is always done');
  });

  test('the workflow state names the running turn, so a reloaded page can re-attach to it', async () => {
    await bind(a, 'reattach', packId);
    assert.equal((await a.get('/agent/workflows/reattach')).body.running_run_id, null);
    fake.enqueue({ tokens: 400, tokenIntervalMs: 20 });
    let runId = '';
    let seen = null as Promise<unknown> | null; // set in the callback: keep TS from narrowing it to null
    await stream('message=slow&project_slug=reattach', a, {
      onEvent: (e) => {
        if (e.event === 'status') runId = e.data.run_id;
        if (e.event === 'content' && !seen) {
          seen = (async () => {
            const st = await a.get('/agent/workflows/reattach');
            assert.equal(st.body.running_run_id, runId);
            assert.equal((await b.get('/agent/workflows/reattach')).status, 404);
            // re-attaching from seq 0 replays the turn from its first event
            let cancelled = false;
            const again = await stream(`last_event_id=${encodeURIComponent(`${runId}:0`)}`, a, {
              onEvent: (e2) => {
                if (e2.event === 'content' && !cancelled) {
                  cancelled = true;
                  void a.post(`/agent/runs/${runId}/cancel`);
                }
              },
            });
            assert.equal(again.events[0].event, 'status');
            assert.equal(again.events[0].seq, 1);
            assert.equal(again.events.at(-1)!.event, 'close');
          })();
        }
      },
    });
    assert.ok(seen);
    await seen;
    assert.equal((await a.get('/agent/workflows/reattach')).body.running_run_id, null);
  });

  test('gate → awaiting_gate → advance → stage', async () => {
    await bind(a, 'gated', packId);
    fake.enqueue({ text: 'discovered' });
    const first = await stream('message=start&project_slug=gated');
    assert.ok(names(first.events).includes('awaiting_gate'));
    const adv = await stream('message=&advance=1&project_slug=gated');
    const stage = adv.events.find((e) => e.event === 'stage');
    assert.deepEqual(stage?.data, {
      from: 'discover',
      to: 'design',
      index: 1,
      stages: ['discover', 'design', 'develop', 'test', 'deploy', 'iterate'],
    });
    assert.ok(!names(adv.events).includes('agent'), 'an empty message only moves');
    const state = (await a.get('/agent/workflows/gated')).body;
    assert.equal(state.stage, 'design');
    assert.equal(state.awaiting_gate, null);
    fake.enqueue({ text: 'designing' });
    const next = await a.post('/agent/chat', { message: 'now design', project_slug: 'gated' });
    assert.equal(next.body.node_key, 'design');
    assert.equal(next.body.stage, 'design');
  });

  test('a gate approval (Advance) leaves a history entry naming the move and the gate it approved', async () => {
    await bind(a, 'approved', packId);
    fake.enqueue({ text: 'discovered' });
    await stream('message=start&project_slug=approved');
    await stream('message=&advance=1&project_slug=approved');
    const { messages } = (await a.get('/agent/history/approved')).body;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[2]).toMatchObject({
      role: 'user',
      content: '',
      stage: 'discover',
      stage_change: { from: 'discover', to: 'design', gate: 'gate1' },
    });
    expect(messages[0].stage_change).toBeNull();
    // an Advance with no gate pending records the move without one
    await stream('message=&advance=1&project_slug=approved');
    const again = (await a.get('/agent/history/approved')).body.messages;
    expect(again.at(-1).stage_change).toEqual({ from: 'design', to: 'develop', gate: null });
  });

  test('advance at the last stage: 409 for chat, an error event for the stream', async () => {
    await bind(a, 'last', packId, 'iterate');
    const r = await a.post('/agent/chat', { message: '', project_slug: 'last', advance: true });
    assert.equal(r.status, 409);
    const s = await stream('advance=true&project_slug=last');
    assert.equal(s.events.find((e) => e.event === 'error')!.data.code, 'last_stage');
    assert.deepEqual(names(s.events).slice(-3), ['workflow', 'done', 'close']);
  });

  test('branch conditions choose the edge', async () => {
    const branchPack = (await setupPack(a, fake, { graph: 'branch' })).packId;
    await bind(a, 'branch', branchPack);
    fake.enqueue({ text: 'yes, go' }, { text: 'took yes' });
    const yes = await stream('message=q&project_slug=branch');
    const visited = yes.events
      .filter((e) => e.event === 'node' && e.data.state === 'started')
      .map((e) => e.data.node_key);
    assert.deepEqual(visited, ['ask', 'route', 'yes']);
    fake.enqueue({ text: 'nope' }, { text: 'took no' });
    const no = await stream('message=q&project_slug=branch');
    assert.deepEqual(
      no.events.filter((e) => e.event === 'node' && e.data.state === 'started').map((e) => e.data.node_key),
      ['ask', 'route', 'no'],
    );
    assert.equal(no.events.find((e) => e.event === 'done')!.data.reply, 'took no');
  });

  test('a graph saved between turns is what the next turn walks', async () => {
    const { packId: p, agentId } = await setupPack(a, fake);
    await bind(a, 'regraph', p);
    fake.enqueue({ text: 'one' });
    assert.equal((await a.post('/agent/chat', { message: 'x', project_slug: 'regraph' })).body.node_key, 'gate1');
    const g = await a.put(`/studio/api/workflows/${p}/graph`, {
      nodes: [{ node_key: 'solo', type: 'agent', agent_id: agentId, stage_label: 'discover' }],
      edges: [{ from_node: 'start', to_node: 'solo' }],
    });
    assert.equal(g.status, 200);
    fake.enqueue({ text: 'two' });
    const r = await a.post('/agent/chat', { message: 'y', project_slug: 'regraph' });
    assert.equal(r.body.node_key, 'solo');
  });

  test('history pages oldest first with next_before', async () => {
    const h = await a.get('/agent/history/sync?limit=1');
    assert.equal(h.body.messages.length, 1);
    assert.equal(h.body.messages[0].role, 'assistant');
    const prev = await a.get(`/agent/history/sync?limit=1&before=${h.body.next_before}`);
    assert.equal(prev.body.messages[0].role, 'user');
    assert.equal((await a.get('/agent/history/sync?limit=500')).status, 400);
  });
});
