/**
 * Per-tool approval (docs/decisions/runtime.md, "Per-tool approval"), with the scripted fake provider as the
 * model: a call to a tool in `tools_requiring_approval` stops the run `awaiting_approval` (the tool does not
 * run); approve, reject and edit each change what the model sees (the tool message the fake provider
 * receives) and the workspace; the project takes no new turn meanwhile; a pending approval survives an
 * app restart (a second app on the same database); an MCP tool requiring approval runs once approved.
 */
import { ADMIN, startApp, type TestApp } from './support/app';
import { bind } from './support/chat-pack';
import { FakeLlm } from './support/fake-llm';
import { Client, newUser } from './support/http';
import { McpToolServer } from './support/mcp-tool-server';
import { readStream, type SseEvent } from './support/sse';

const TOOLS = ['list_files', 'read_file', 'write_file', 'edit_file'];
const write = (path: string, content: string) => ({
  text: 'Writing the file. ',
  tool_calls: [{ name: 'write_file', arguments: { path, content } }],
});

describe('per-tool approval', () => {
  let t: TestApp;
  let fake: FakeLlm;
  let tools: McpToolServer;
  let a: Client;
  let modelId: number;
  let packId: number;

  async function agentPack(body: Record<string, unknown>): Promise<number> {
    const agent = await a.post('/studio/api/agents', { name: 'Careful', model_id: modelId, ...body });
    expect(agent.status).toBe(201);
    const pack = await a.post('/studio/api/workflows', { name: `Approval ${Math.random()}`, domain: 'pdlc' });
    const g = await a.put(`/studio/api/workflows/${pack.body.id}/graph`, {
      nodes: [{ node_key: 'work', type: 'agent', agent_id: agent.body.id, stage_label: 'discover' }],
      edges: [{ from_node: 'start', to_node: 'work' }],
    });
    expect(g.status).toBe(200);
    return pack.body.id;
  }

  /** A turn on a fresh project that stops at the write_file call: its run id and pending call. */
  async function pending(slug: string, turn = write('a.md', 'alpha'), pack = packId) {
    await bind(a, slug, pack);
    fake.enqueue(turn, { text: 'Finished.' });
    const before = fake.requests.length;
    const r = await a.post('/agent/chat', { project_slug: slug, message: 'write it' });
    expect(r.status).toBe(200);
    expect(fake.requests.length).toBe(before + 1);
    expect(r.body.pending_approval).toMatchObject({ name: turn.tool_calls[0].name });
    const runId = r.body.run_id as string;
    const run = await a.get(`/agent/runs/${runId}`);
    return { runId, callId: r.body.pending_approval.call_id as string, lastSeq: run.body.last_seq as number };
  }

  /** The rest of the run's stream after what the waiting turn stored (its last seq: `lastSeq`). */
  async function rest(c: Client, base: string, runId: string, lastSeq: number): Promise<SseEvent[]> {
    const r = await readStream(`${base}/agent/runs/${runId}/stream`, {
      headers: { cookie: c.cookie!, 'last-event-id': `${runId}:${lastSeq}` },
      timeoutMs: 30_000,
    });
    return r.events;
  }

  const lastToolMessage = () =>
    fake.requests
      .at(-1)!
      .body.messages.filter((m: { role: string }) => m.role === 'tool')
      .at(-1);

  beforeAll(async () => {
    fake = await FakeLlm.start();
    tools = await McpToolServer.start();
    t = await startApp();
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    const model = await a.post('/studio/api/models', {
      label: 'Fake',
      provider: 'custom',
      model_id: 'fake-1',
      api_base: fake.openaiBase,
    });
    modelId = model.body.id;
    packId = await agentPack({ tool_allowlist: TOOLS, tools_requiring_approval: ['write_file'] });
  });
  afterAll(async () => {
    await t.close();
    await tools.close();
    await fake.close();
  });

  test('tools_requiring_approval must name tools of the record allowlist (skills and agents)', async () => {
    const bad = await a.post('/studio/api/agents', {
      name: 'Bad',
      tool_allowlist: ['read_file'],
      tools_requiring_approval: ['read_file', 'write_file'],
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/problem\+json/);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['tools_requiring_approval[1]']);
    const skill = await a.post('/studio/api/skills', {
      name: 'Guarded',
      tool_allowlist: ['write_file', 'docs/search'],
      tools_requiring_approval: ['docs/search', 'docs/search'],
    });
    expect(skill.status).toBe(201);
    expect(skill.body.tools_requiring_approval).toEqual(['docs/search']);
    const badSkill = await a.put(`/studio/api/skills/${skill.body.id}`, { tools_requiring_approval: ['edit_file'] });
    expect(badSkill.status).toBe(400);
    // narrowing the allowlist drops the names it no longer allows
    const narrowed = await a.put(`/studio/api/skills/${skill.body.id}`, { tool_allowlist: ['write_file'] });
    expect(narrowed.body.tools_requiring_approval).toEqual([]);
  });

  test('pack export carries tools_requiring_approval; import checks it and restores it', async () => {
    const skill = await a.post('/studio/api/skills', {
      name: 'Exported skill',
      tool_allowlist: ['edit_file'],
      tools_requiring_approval: ['edit_file'],
    });
    const agent = await a.post('/studio/api/agents', {
      name: 'Exported agent',
      skill_ids: [skill.body.id],
      tool_allowlist: ['read_file', 'write_file'],
      tools_requiring_approval: ['write_file'],
    });
    const pack = await a.post('/studio/api/workflows', { name: 'Exported approval pack', domain: 'pdlc' });
    await a.put(`/studio/api/workflows/${pack.body.id}/graph`, {
      nodes: [{ node_key: 'n', type: 'agent', agent_id: agent.body.id, stage_label: 'discover' }],
      edges: [{ from_node: 'start', to_node: 'n' }],
    });
    const doc = (await a.post(`/studio/api/workflows/${pack.body.id}/export`, {})).body;
    expect(doc.skills[0].tools_requiring_approval).toEqual(['edit_file']);
    expect(doc.agents[0].tools_requiring_approval).toEqual(['write_file']);

    const other = await newUser(t.url, a, 'approval-importer');
    const imported = await other.post('/studio/api/workflows/import', doc);
    expect(imported.status).toBe(201);
    const agents = (await other.get('/studio/api/agents')).body.filter((x: { is_system: boolean }) => !x.is_system);
    expect(agents.map((x: { tools_requiring_approval: string[] }) => x.tools_requiring_approval)).toEqual([
      ['write_file'],
    ]);
    // a name outside the item's allowlist is refused, naming the field
    doc.agents[0].tools_requiring_approval = ['edit_file'];
    const bad = await other.post('/studio/api/workflows/import', doc);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain('agents[0].tools_requiring_approval[0]');
  });

  test('approve: the turn stops before the tool, the project waits, the approved call runs as the same run', async () => {
    const { runId, callId, lastSeq } = await pending('approve-it');
    // nothing written; the run, the project state and history show the pending call
    expect((await a.get('/studio/api/projects/approve-it/files/a.md')).status).toBe(404);
    const run = await a.get(`/agent/runs/${runId}`);
    expect(run.body).toMatchObject({
      state: 'awaiting_approval',
      pending_approval: { call_id: callId, name: 'write_file', arguments: { path: 'a.md', content: 'alpha' } },
    });
    const state = await a.get('/agent/workflows/approve-it');
    expect(state.body).toMatchObject({ running_run_id: null, awaiting_approval: { run_id: runId, call_id: callId } });
    const history = await a.get('/agent/history/approve-it');
    expect(history.body.messages.at(-1)).toMatchObject({
      state: 'awaiting_approval',
      pending_approval: { call_id: callId, name: 'write_file' },
    });
    // the stored stream ends approval → done (awaiting_approval) → close
    const stored = await readStream(`${t.url}/agent/runs/${runId}/stream`, { headers: { cookie: a.cookie! } });
    expect(stored.events.slice(-4).map((e) => e.event)).toEqual(['approval', 'workflow', 'done', 'close']);
    expect(stored.events.at(-4)!.data).toEqual({
      call_id: callId,
      name: 'write_file',
      arguments: { path: 'a.md', content: 'alpha' },
    });
    expect(stored.events.at(-2)!.data.state).toBe('awaiting_approval');

    // one unfinished turn per project: a new message is refused, naming the waiting run
    const busy = await a.post('/agent/chat', { project_slug: 'approve-it', message: 'something else' });
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ code: 'approval_pending', run_id: runId });
    const queued = await a.post('/agent/chat?multitask=enqueue', { project_slug: 'approve-it', message: 'later' });
    expect(queued.status).toBe(409);

    // bad decisions: 400 body, 409 wrong call, 404 someone else's run
    const url = `/agent/runs/${runId}/approvals/${callId}`;
    expect((await a.post(url, { decision: 'maybe' })).status).toBe(400);
    expect((await a.post(url, { decision: 'reject' })).status).toBe(400);
    expect((await a.post(url, { decision: 'edit', arguments: [1] })).status).toBe(400);
    expect((await a.post(url, { decision: 'approve', reason: 'x' })).status).toBe(400);
    // the limits: a reason of at most 4,096 characters, edited arguments of at most 65,536 characters of JSON
    expect((await a.post(url, { decision: 'reject', reason: 'r'.repeat(4097) })).status).toBe(400);
    const huge = await a.post(url, { decision: 'edit', arguments: { content: 'x'.repeat(65_536) } });
    expect(huge.status).toBe(400);
    expect(huge.body.errors[0].field).toBe('arguments');
    const wrong = await a.post(`/agent/runs/${runId}/approvals/call_other`, { decision: 'approve' });
    expect(wrong.status).toBe(409);
    expect(wrong.body.pending_call_id).toBe(callId);
    const other = await newUser(t.url, a, 'approval-other');
    expect((await other.post(url, { decision: 'approve' })).status).toBe(404);

    const ok = await a.post(url, { decision: 'approve' });
    expect(ok.status).toBe(202);
    expect(ok.body).toEqual({ run_id: runId });
    const events = await rest(a, t.url, runId, lastSeq);
    expect(events[0]).toMatchObject({ event: 'status', data: { state: 'resumed' } });
    expect(events.find((e) => e.event === 'tool_result')!.data).toMatchObject({ call_id: callId, ok: true });
    expect(events.at(-2)!.data).toMatchObject({ state: 'done', reply: 'Finished.' });
    expect(lastToolMessage().content).toMatch(/a\.md/);
    expect((await a.get('/studio/api/projects/approve-it/files/a.md')).body.content).toBe('alpha');
    expect((await a.get(`/agent/runs/${runId}`)).body).toMatchObject({ state: 'done', pending_approval: null });
    // decided once: the run no longer waits
    expect((await a.post(url, { decision: 'approve' })).status).toBe(409);
    const after = await a.get('/agent/history/approve-it');
    expect(after.body.messages.at(-1)).toMatchObject({ state: 'done', content: 'Finished.' });
  });

  test('reject: the tool does not run and the model reads the reason as its result', async () => {
    const { runId, callId, lastSeq } = await pending('reject-it');
    const r = await a.post(`/agent/runs/${runId}/approvals/${callId}`, {
      decision: 'reject',
      reason: 'not in this folder',
    });
    expect(r.status).toBe(202);
    const events = await rest(a, t.url, runId, lastSeq);
    expect(events.find((e) => e.event === 'tool_result')!.data).toMatchObject({ ok: false });
    expect(JSON.parse(lastToolMessage().content)).toEqual({
      ok: false,
      error: 'The user rejected this call: not in this folder',
    });
    expect((await a.get('/studio/api/projects/reject-it/files/a.md')).status).toBe(404);
  });

  test('edit: the tool runs with the edited arguments', async () => {
    const { runId, callId, lastSeq } = await pending('edit-it');
    const r = await a.post(`/agent/runs/${runId}/approvals/${callId}`, {
      decision: 'edit',
      arguments: { path: 'b.md', content: 'edited' },
    });
    expect(r.status).toBe(202);
    await rest(a, t.url, runId, lastSeq);
    expect(lastToolMessage().content).toMatch(/b\.md/);
    expect((await a.get('/studio/api/projects/edit-it/files/a.md')).status).toBe(404);
    expect((await a.get('/studio/api/projects/edit-it/files/b.md')).body.content).toBe('edited');
    const history = await a.get('/agent/history/edit-it');
    expect(history.body.messages.at(-1).tool_calls).toEqual([
      { name: 'write_file', arguments: { path: 'b.md', content: 'edited' }, ok: true },
    ]);
  });

  test('two decisions at once: one applies, the other is 409', async () => {
    const { runId, callId, lastSeq } = await pending('race-it');
    const url = `/agent/runs/${runId}/approvals/${callId}`;
    const both = await Promise.all([a.post(url, { decision: 'approve' }), a.post(url, { decision: 'approve' })]);
    expect(both.map((r) => r.status).sort()).toEqual([202, 409]);
    const events = await rest(a, t.url, runId, lastSeq);
    expect(events.filter((e) => e.event === 'tool_result')).toHaveLength(1);
    expect(events.at(-2)!.data.state).toBe('done');
  });

  test('an MCP tool requiring approval stops, and runs once approved', async () => {
    await a.post('/studio/api/mcp-servers', { name: 'kit', url: tools.url });
    const mcpPack = await agentPack({ tool_allowlist: ['kit/echo'], tools_requiring_approval: ['kit/echo'] });
    const turn = { tool_calls: [{ name: 'kit__echo', arguments: { text: 'hello' } }] };
    await bind(a, 'mcp-approval', mcpPack);
    fake.enqueue(turn, { text: 'Echoed.' });
    const calls = tools.calls.length;
    const r = await a.post('/agent/chat', { project_slug: 'mcp-approval', message: 'echo' });
    expect(r.body.pending_approval).toMatchObject({ name: 'kit/echo', arguments: { text: 'hello' } });
    expect(tools.calls.length).toBe(calls);
    const { last_seq: lastSeq } = (await a.get(`/agent/runs/${r.body.run_id}`)).body;
    const ok = await a.post(`/agent/runs/${r.body.run_id}/approvals/${r.body.pending_approval.call_id}`, {
      decision: 'approve',
    });
    expect(ok.status).toBe(202);
    await rest(a, t.url, r.body.run_id, lastSeq);
    expect(tools.calls.length).toBe(calls + 1);
    expect(lastToolMessage().content).toBe('echo: hello');
  });

  test('a pending approval survives an app restart', async () => {
    const { runId, callId, lastSeq } = await pending('restart-it');
    await t.stop();
    t = await startApp({ db: t.db });
    const c = new Client(t.url);
    await c.login(ADMIN.username, ADMIN.password);
    expect((await c.get(`/agent/runs/${runId}`)).body.state).toBe('awaiting_approval');
    const r = await c.post(`/agent/runs/${runId}/approvals/${callId}`, { decision: 'approve' });
    expect(r.status).toBe(202);
    const events = await rest(c, t.url, runId, lastSeq);
    expect(events.at(-2)!.data.state).toBe('done');
    expect((await c.get('/studio/api/projects/restart-it/files/a.md')).body.content).toBe('alpha');
  });
});
