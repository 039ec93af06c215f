/**
 * The runtime over HTTP: sync chat, the SSE stream (order, resume, cancel), gates, branches, limits,
 * provider failures, tool path escapes, the demo and the offline provider — through the real SDKs
 * against a fake OpenAI-compatible server on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { DataSource } from 'typeorm';
import { ADMIN, createTestDb, startApp, type TestApp } from './support/app';
import { FakeLlm } from './support/fake-llm';
import { Client, newUser } from './support/http';
import { names, readStream, type SseEvent } from './support/sse';

const TOOLS = ['list_files', 'read_file', 'write_file', 'edit_file', 'search_files'];

async function setupPack(c: Client, fake: FakeLlm, opts: { maxIterations?: number; graph?: 'gate' | 'branch' } = {}) {
  const model = await c.post('/studio/api/models', { label: 'Fake', provider: 'custom', model_id: 'fake-1', api_base: fake.openaiBase, api_key: 'sk-user-key' });
  assert.equal(model.status, 201, model.text);
  const agent = await c.post('/studio/api/agents', { name: 'Scribe', role: 'writer', model_id: model.body.id, tool_allowlist: TOOLS, max_iterations: opts.maxIterations ?? 8 });
  assert.equal(agent.status, 201, agent.text);
  const pack = await c.post('/studio/api/workflows', { name: `Pack ${Math.random()}`, domain: 'pdlc' });
  const id = agent.body.id;
  const graph =
    opts.graph === 'branch'
      ? {
          nodes: [
            { node_key: 'ask', type: 'agent', agent_id: id, stage_label: 'discover' },
            { node_key: 'route', type: 'branch', stage_label: 'discover' },
            { node_key: 'yes', type: 'agent', agent_id: id, stage_label: 'discover' },
            { node_key: 'no', type: 'agent', agent_id: id, stage_label: 'discover' },
          ],
          edges: [
            { from_node: 'start', to_node: 'ask' },
            { from_node: 'ask', to_node: 'route' },
            { from_node: 'route', to_node: 'no', condition: null },
            { from_node: 'route', to_node: 'yes', condition: 'contains(reply, "yes")' },
          ],
        }
      : {
          nodes: [
            { node_key: 'write', type: 'agent', agent_id: id, stage_label: 'discover', config: { artifact: 'docs/out.md' } },
            { node_key: 'gate1', type: 'gate', stage_label: 'discover' },
            { node_key: 'design', type: 'agent', agent_id: id, stage_label: 'design' },
          ],
          edges: [
            { from_node: 'start', to_node: 'write' },
            { from_node: 'write', to_node: 'gate1' },
            { from_node: 'gate1', to_node: 'design' },
          ],
        };
  const g = await c.put(`/studio/api/workflows/${pack.body.id}/graph`, graph);
  assert.equal(g.status, 200, g.text);
  return { packId: pack.body.id as number, agentId: id as number };
}

async function bind(c: Client, slug: string, packId: number, stage = 'discover') {
  const r = await c.put(`/agent/workflows/${slug}`, { domain: 'pdlc', stage, pack_id: packId });
  assert.equal(r.status, 200, r.text);
}

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
    readStream(`${t.url}/agent/stream?${q}`, { ...extra, headers: { ...(c?.cookie ? { cookie: c.cookie } : {}), ...extra.headers } });

  before(async () => {
    fake = await FakeLlm.start();
    t = await startApp();
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    b = await newUser(t.url, a, 'bob');
    packId = (await setupPack(a, fake)).packId;
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  test('sync chat: the model writes a file then answers; history, files and the gate are recorded', async () => {
    await bind(a, 'sync', packId);
    fake.enqueue({ tool_calls: [{ name: 'write_file', arguments: { path: 'docs/notes.md', content: 'hello notes' } }] }, { text: 'Done writing.' });
    const r = await a.post('/agent/chat', { message: 'write notes', project_slug: 'sync' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.reply, 'Done writing.');
    assert.equal(r.body.project_slug, 'sync');
    assert.equal(r.body.pack_id, packId);
    assert.equal(r.body.node_key, 'gate1');
    assert.equal(r.body.agent.name, 'Scribe');
    assert.deepEqual(r.body.tool_calls, [{ name: 'write_file', arguments: { path: 'docs/notes.md', content: 'hello notes' }, ok: true }]);
    assert.deepEqual(r.body.files_changed, [{ path: 'docs/notes.md', change: 'added' }, { path: 'docs/out.md', change: 'added' }]);
    assert.deepEqual(r.body.awaiting_gate, { node_key: 'gate1', stage: 'discover', next_stage: 'design' });
    assert.ok(r.body.usage.output_tokens > 0);
    assert.equal((await a.get('/studio/api/projects/sync/files/docs/notes.md')).body.content, 'hello notes');
    assert.equal((await a.get('/studio/api/projects/sync/files/docs/out.md')).body.content, 'Done writing.', 'the artifact holds the reply');
    const second = fake.requests[fake.requests.length - 1].body;
    const toolMsg = second.messages.find((m: { role: string }) => m.role === 'tool');
    assert.ok(toolMsg && toolMsg.tool_call_id, 'the tool result went back to the model');
    assert.ok(!JSON.stringify(second).includes('sk-server'), 'no server key');
    const h = await a.get('/agent/history/sync');
    assert.deepEqual(h.body.messages.map((m: { role: string }) => m.role), ['user', 'assistant']);
    assert.equal(h.body.messages[1].tool_calls[0].name, 'write_file');
    assert.equal(h.body.messages[1].run_id, r.body.run_id);
    assert.equal(h.body.messages[1].node_key, 'write', 'the reply is credited to the agent node, not the gate that stopped the turn');
    assert.equal(h.body.messages[1].state, 'done');
    assert.equal(h.body.messages[1].error, null);
    assert.equal(h.body.next_before, null);
    const state = await a.get('/agent/workflows/sync');
    assert.deepEqual(state.body.awaiting_gate, { node_key: 'gate1', stage: 'discover', next_stage: 'design' });
  });

  test('stream: the exact event order, ids <run_id>:<seq>, headers', async () => {
    await bind(a, 'order', packId);
    fake.enqueue({ tool_calls: [{ name: 'write_file', arguments: { path: 'a.md', content: 'x' } }] }, { text: 'All done here.' });
    const s = await stream('message=go&project_slug=order');
    assert.equal(s.status, 200);
    assert.match(s.headers.get('cache-control') ?? '', /no-cache/);
    assert.equal(s.headers.get('x-accel-buffering'), 'no');
    assertContiguous(s.events);
    const seq = names(s.events).filter((n, i, all) => !(n === 'content' && all[i - 1] === 'content'));
    assert.deepEqual(seq, [
      'status', 'pack', 'workflow', 'node', 'agent', 'tool_call', 'tool_result', 'files_changed', 'content', 'files_changed',
      'node', 'node', 'node', 'awaiting_gate', 'workflow', 'done', 'close',
    ]);
    const content = s.events.filter((e) => e.event === 'content').map((e) => e.data.delta).join('');
    assert.equal(content, 'All done here.');
    assert.equal(s.events[0].data.state, 'running');
    assert.deepEqual([s.events[0].data.provider, s.events[0].data.model], ['custom', 'fake-1'], 'status names the model the agent runs on, not the server default');
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
    const replay = await readStream(`${t.url}/agent/stream?last_event_id=${encodeURIComponent(all[2].id)}`, { headers: { cookie: a.cookie! } });
    assert.deepEqual(replay.events.map((e) => e.seq), all.slice(3).map((e) => e.seq));
    // another user cannot resume it
    const other = await readStream(`${t.url}/agent/stream`, { headers: { cookie: b.cookie!, 'last-event-id': lastId } });
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
    const partial = s.events.filter((e) => e.event === 'content').map((e) => e.data.delta).join('');
    assert.ok(partial.length > 0);
    assert.equal(s.events.find((e) => e.event === 'done')!.data.reply, partial);
    const h = await a.get('/agent/history/cancel');
    const last = h.body.messages.at(-1);
    assert.deepEqual([last.role, last.state, last.content, last.node_key, last.error.code], ['assistant', 'stopped', partial, 'write', 'cancelled']);
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
    assert.deepEqual(stage?.data, { from: 'discover', to: 'design', index: 1, stages: ['discover', 'design', 'develop', 'test', 'deploy', 'iterate'] });
    assert.ok(!names(adv.events).includes('agent'), 'an empty message only moves');
    const state = (await a.get('/agent/workflows/gated')).body;
    assert.equal(state.stage, 'design');
    assert.equal(state.awaiting_gate, null);
    fake.enqueue({ text: 'designing' });
    const next = await a.post('/agent/chat', { message: 'now design', project_slug: 'gated' });
    assert.equal(next.body.node_key, 'design');
    assert.equal(next.body.stage, 'design');
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
    const visited = yes.events.filter((e) => e.event === 'node' && e.data.state === 'started').map((e) => e.data.node_key);
    assert.deepEqual(visited, ['ask', 'route', 'yes']);
    fake.enqueue({ text: 'nope' }, { text: 'took no' });
    const no = await stream('message=q&project_slug=branch');
    assert.deepEqual(no.events.filter((e) => e.event === 'node' && e.data.state === 'started').map((e) => e.data.node_key), ['ask', 'route', 'no']);
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

  test('max_iterations → error, then done and close; the sync API answers 422', async () => {
    const p = (await setupPack(a, fake, { maxIterations: 2 })).packId;
    await bind(a, 'loop', p);
    const call = { tool_calls: [{ name: 'list_files', arguments: {} }] };
    fake.enqueue(call, call);
    const s = await stream('message=loop&project_slug=loop');
    assert.equal(s.events.find((e) => e.event === 'error')!.data.code, 'max_iterations');
    assert.deepEqual(names(s.events).slice(-3), ['workflow', 'done', 'close']);
    fake.enqueue(call, call);
    assert.equal((await a.post('/agent/chat', { message: 'loop', project_slug: 'loop' })).status, 422);
  });

  test('provider 500 and a garbage stream become clean error events', async () => {
    await bind(a, 'fail', packId);
    fake.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
    const s = await stream('message=x&project_slug=fail');
    const err = s.events.find((e) => e.event === 'error')!;
    assert.equal(err.data.code, 'provider_http');
    assert.ok(!err.data.message.includes('sk-user-key'));
    assert.deepEqual(names(s.events).slice(-3), ['workflow', 'done', 'close']);
    const failed = (await a.get('/agent/history/fail')).body.messages.at(-1);
    assert.deepEqual([failed.role, failed.state, failed.error.code, failed.content], ['assistant', 'failed', 'provider_http', '']);
    fake.enqueue({ garbage: true });
    const g = await stream('message=x&project_slug=fail');
    assert.equal(g.events.find((e) => e.event === 'error')!.data.code, 'provider_protocol');
    assert.equal(g.events.at(-1)!.event, 'close');
  });

  test('NUL characters from the model are stored as U+FFFD, so the turn and its history are recorded', async () => {
    await bind(a, 'nul', packId);
    fake.enqueue({ text: 'a\u0000b' });
    const s = await stream('message=x&project_slug=nul');
    const done = s.events.find((e) => e.event === 'done')!;
    assert.equal(done.data.state, 'done');
    assert.equal(done.data.reply, 'a\uFFFDb');
    const h = await a.get('/agent/history/nul');
    assert.equal(h.body.messages.at(-1).content, 'a\uFFFDb');
    const replay = await stream('', a, { headers: { 'last-event-id': `${done.id.split(':')[0]}:0` } });
    assert.deepEqual(names(replay.events), names(s.events), 'the stored events replay in full');
  });

  test('an emoji whose surrogate pair the model splits across two chunks arrives whole; the turn is recorded', async () => {
    await bind(a, 'emoji', packId);
    fake.enqueue({ chunks: ['smile ', '\ud83d', '\ude00', ' end'] });
    const s = await stream('message=x&project_slug=emoji');
    const done = s.events.find((e) => e.event === 'done')!;
    assert.equal(done.data.state, 'done');
    assert.equal(done.data.reply, 'smile \u{1F600} end');
    assert.equal(s.events.filter((e) => e.event === 'content').map((e) => e.data.delta).join(''), 'smile \u{1F600} end');
    assert.deepEqual(names(s.events).slice(-3), ['workflow', 'done', 'close']);
    assert.equal(s.events.filter((e) => e.event === 'done').length, 1);
    const runId = done.id.split(':')[0];
    const run = await t.created.app.get(DataSource).query('SELECT state FROM runs WHERE id = $1', [runId]);
    assert.equal(run[0].state, 'done');
    const h = await a.get('/agent/history/emoji');
    assert.equal(h.body.messages.at(-1).content, 'smile \u{1F600} end');
    const replay = await stream('', a, { headers: { 'last-event-id': `${runId}:0` } });
    assert.deepEqual(names(replay.events), names(s.events), 'the stored events replay in full');
  });

  test('a lone surrogate in a chat message is stored as U+FFFD; the turn ends done with its history', async () => {
    // the offline provider quotes the message in its reply and in the artifact it writes (a tool call)
    const pdlc = (await a.get('/agent/workflows')).body.workflows.find((w: { slug: string }) => w.slug === 'pdlc');
    await bind(a, 'lone', pdlc.pack_id);
    const r = await a.post('/agent/chat', { message: 'Build x\udfffy', project_slug: 'lone' });
    assert.equal(r.status, 200, r.text);
    const run = await t.created.app.get(DataSource).query('SELECT state FROM runs WHERE id = $1', [r.body.run_id]);
    assert.equal(run[0].state, 'done');
    const h = await a.get('/agent/history/lone');
    assert.deepEqual(h.body.messages.map((m: { role: string }) => m.role), ['user', 'assistant']);
    assert.equal(h.body.messages[0].content, 'Build x\uFFFDy');
    const replay = await stream('', a, { headers: { 'last-event-id': `${r.body.run_id}:0` } });
    assert.equal(replay.events.at(-1)!.event, 'close');
    assert.equal(replay.events.filter((e) => e.event === 'done').length, 1);
  });

  test('one huge model token: content events stay small, the reply is capped with reply_too_large, the run is recorded', async () => {
    await bind(a, 'huge', packId);
    fake.enqueue({ chunks: ['start ', 'x'.repeat(40_000), 'y'.repeat(3 * 1024 * 1024)] });
    const s = await stream('message=x&project_slug=huge');
    const contents = s.events.filter((e) => e.event === 'content');
    assert.equal(contents.map((e) => e.data.delta).join(''), 'start ' + 'x'.repeat(40_000), 'the pieces before the cap arrive whole');
    assert.ok(contents.every((e) => e.data.delta.length <= 16_384), 'no content event above 16 KiB');
    assert.equal(s.events.find((e) => e.event === 'error')!.data.code, 'reply_too_large');
    assert.deepEqual(names(s.events).slice(-3), ['workflow', 'done', 'close']);
    assert.equal(s.events.find((e) => e.event === 'done')!.data.state, 'error');
    const runId = s.events[0].id.split(':')[0];
    const run = await t.created.app.get(DataSource).query('SELECT state, reply FROM runs WHERE id = $1', [runId]);
    assert.equal(run[0].state, 'error');
    const sync = await a.post('/agent/chat', { message: 'again', project_slug: 'huge' });
    assert.equal(sync.status, 200, 'the fake has no more huge turns queued');
    fake.enqueue({ chunks: ['z'.repeat(2 * 1024 * 1024)] });
    const r = await a.post('/agent/chat', { message: 'huge', project_slug: 'huge' });
    assert.equal(r.status, 502);
    assert.equal(r.body.code, 'turn.reply_too_large');
  });

  test('a reply is stored once: in the history entry, not again on the run row', async () => {
    await bind(a, 'once', packId);
    fake.enqueue({ text: 'the only copy' });
    const r = await a.post('/agent/chat', { message: 'x', project_slug: 'once' });
    assert.equal(r.status, 200, r.text);
    const run = await t.created.app.get(DataSource).query('SELECT reply FROM runs WHERE id = $1', [r.body.run_id]);
    assert.equal(run[0].reply, '');
    const h = await a.get('/agent/history/once');
    assert.equal(h.body.messages.at(-1).content, 'the only copy');
  });

  test('path traversal by the model is refused as a tool error and the loop goes on', async () => {
    await bind(a, 'escape', packId);
    fake.enqueue(
      { tool_calls: [{ name: 'write_file', arguments: { path: '../../etc/evil', content: 'x' } }, { name: 'read_file', arguments: { path: '/etc/passwd' } }] },
      { text: 'could not' },
    );
    const s = await stream('message=x&project_slug=escape');
    const results = s.events.filter((e) => e.event === 'tool_result');
    assert.deepEqual(results.map((e) => e.data.ok), [false, false]);
    assert.match(results[0].data.error, /\.\./);
    assert.equal(s.events.find((e) => e.event === 'done')!.data.state, 'done');
    const files = (await a.get('/studio/api/projects/escape/files')).body.map((f: { path: string }) => f.path);
    assert.deepEqual(files, ['docs/out.md']);
  });

  test('auth: anonymous stream with project_slug is 401; other users cannot read history or state', async () => {
    const anon = await stream('message=x&project_slug=sync', null);
    assert.equal(anon.status, 401);
    assert.equal(anon.body.status, 401);
    assert.equal((await b.get('/agent/history/sync')).status, 404);
    assert.equal((await b.get('/agent/workflows/sync')).status, 404);
    assert.equal((await new Client(t.url).post('/agent/chat', { message: 'x', project_slug: 'sync' })).status, 401);
    assert.equal((await a.post('/agent/chat', { message: 'x', project_slug: 'nopack' })).status, 400, 'a project without a pack');
    assert.equal((await a.post('/agent/chat', { message: 'x'.repeat(32 * 1024 + 1), project_slug: 'sync' })).status, 400);
  });

  test('history pages oldest first with next_before', async () => {
    const h = await a.get('/agent/history/sync?limit=1');
    assert.equal(h.body.messages.length, 1);
    assert.equal(h.body.messages[0].role, 'assistant');
    const prev = await a.get(`/agent/history/sync?limit=1&before=${h.body.next_before}`);
    assert.equal(prev.body.messages[0].role, 'user');
    assert.equal((await a.get('/agent/history/sync?limit=500')).status, 400);
  });

  test('the offline provider end to end on a project (no model, no network)', async () => {
    const pdlc = (await a.get('/agent/workflows')).body.workflows.find((w: { slug: string }) => w.slug === 'pdlc');
    await bind(a, 'offline', pdlc.pack_id);
    await a.put('/studio/api/projects/offline/files/notes.md', { content: '# Notes\nusers want speed' });
    const before = fake.requests.length;
    const r = await a.post('/agent/chat', { message: 'Build a todo app', project_slug: 'offline' });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.reply, /No language model is configured/);
    assert.deepEqual(r.body.tool_calls.map((c: { name: string }) => c.name), ['list_files', 'read_file', 'write_file']);
    const art = await a.get('/studio/api/projects/offline/files/docs/discovery.md');
    assert.match(art.body.content, /Build a todo app/);
    assert.equal(fake.requests.length, before, 'no network call');
  });
});

describe('demo', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({ config: { demoLimitPerMinute: 8 } });
  });
  after(() => t.close());

  test('works without login on a read-only sample and refuses extra fields', async () => {
    const c = new Client(t.url);
    const r = await c.post('/agent/demo', { message: 'What should we build?', stage: 'discover' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.provider, 'offline');
    assert.equal(r.body.domain, 'pdlc');
    assert.equal(r.body.stage, 'discover');
    assert.match(r.body.reply, /No language model is configured/);
    assert.ok(r.body.tool_calls.some((x: { name: string; ok: boolean }) => x.name === 'list_files' && x.ok));
    assert.ok(!r.body.tool_calls.some((x: { name: string }) => x.name === 'write_file'), 'no writing tools on a read-only workspace');
    for (const extra of [{ agent_id: 1 }, { system_prompt: 'obey me' }, { model: 'x' }, { graph: {} }, { project_slug: 'x' }]) {
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
    assert.equal((await readStream(`${t.url}/agent/stream?message=x`)).status, 429, 'the anonymous stream shares the limit');
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
  before(async () => {
    fake = await FakeLlm.start();
    t = await startApp({ config: { turnTimeoutMs: 1500, maxStreamsPerUser: 2, vendorAKey: 'sk-server-secret-a' } });
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    packId = (await setupPack(a, fake)).packId;
  });
  after(async () => {
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
      open.push(readStream(`${t.url}/agent/stream?message=x&project_slug=cap${i}`, { headers: { cookie: a.cookie! }, onEvent: (e) => void (e.event === 'status' && started++) }));
    }
    while (started < 2) await new Promise((r) => setTimeout(r, 20));
    const third = await readStream(`${t.url}/agent/stream?message=x&project_slug=cap2`, { headers: { cookie: a.cookie! } });
    assert.equal(third.status, 429);
    await Promise.all(open);
  });

  test('a client that disconnects releases its stream slot; the run goes on to the end', async () => {
    for (const slug of ['drop0', 'drop1', 'drop2']) await bind(a, slug, packId);
    fake.enqueue({ tokens: 30, tokenIntervalMs: 10 }, { tokens: 30, tokenIntervalMs: 10 });
    const runIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      await readStream(`${t.url}/agent/stream?message=x&project_slug=drop${i}`, { headers: { cookie: a.cookie! }, onEvent: (e) => (e.event === 'status' ? (runIds.push(e.data.run_id), true) : false) });
    }
    fake.enqueue({ text: 'third' });
    const third = await readStream(`${t.url}/agent/stream?message=x&project_slug=drop2`, { headers: { cookie: a.cookie! } });
    assert.equal(third.status, 200, 'slots were released on disconnect');
    for (const id of runIds) {
      const replay = await readStream(`${t.url}/agent/stream?last_event_id=${id}:0`, { headers: { cookie: a.cookie! } });
      assert.equal(replay.events.find((e) => e.event === 'done')!.data.state, 'done', 'the run finished without its client');
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
    await a.put('/agent/workflows/crashy', { domain: 'pdlc', stage: 'discover', pack_id: (await a.get('/agent/workflows')).body.workflows[0].pack_id });
    const project = (await a.get('/studio/api/projects/crashy')).body;
    const runId = randomUUID();
    await ds.query(`INSERT INTO runs (id, owner_id, project_id, mode, state, stage) VALUES ($1, $2, $3, 'stream', 'running', 'discover')`, [runId, me.id, project.id]);
    await ds.query(`INSERT INTO run_events (run_id, seq, event, data) VALUES ($1, 1, 'status', '{"state":"running"}'), ($1, 2, 'pack', '{}')`, [runId]);
    await first.stop();
    const second = await startApp({ db });
    try {
      const c = new Client(second.url);
      c.cookie = a.cookie;
      const rows = await second.created.app.get(DataSource).query('SELECT state FROM runs WHERE id = $1', [runId]);
      assert.equal(rows[0].state, 'interrupted');
      const s = await readStream(`${second.url}/agent/stream`, { headers: { cookie: c.cookie!, 'last-event-id': `${runId}:1` } });
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

  before(async () => {
    fake = await FakeLlm.start();
    t = await startApp({ config: { heartbeatMs: 50 } });
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  test('a quiet stream gets keepalive comments, then every event as usual', async () => {
    const { packId } = await setupPack(a, fake);
    await bind(a, 'quiet', packId);
    fake.enqueue({ text: 'late but here', ttftMs: 600 });
    const s = await readStream(`${t.url}/agent/stream?message=x&project_slug=quiet`, { headers: { cookie: a.cookie! } });
    assert.ok(s.comments >= 3, `expected keepalive comments while the model was silent, got ${s.comments}`);
    assert.equal(s.events.find((e) => e.event === 'done')!.data.reply, 'late but here');
    assert.equal(s.events.at(-1)!.event, 'close');
    assertContiguous(s.events);
  });
});
