import assert from 'node:assert/strict';
import {
  agentNode,
  all,
  branchNode,
  collect,
  edge,
  fakePorts,
  find,
  makeAgent,
  makePack,
  makeRequest,
  MemoryWorkspace,
  names,
  ScriptedProvider,
  SERVER,
} from './test-support';
import { MAX_NODES_PER_TURN, runTurn } from './turn-runner';

describe('runTurn: branches and limits', () => {
  const branchPack = () =>
    makePack(
      [
        agentNode('ask', 1, 'discover'),
        branchNode('route', 'discover'),
        agentNode('yes', 2, 'discover'),
        agentNode('no', 3, 'discover'),
        agentNode('has', 4, 'discover'),
      ],
      [
        edge('start', 'ask'),
        edge('ask', 'route'),
        edge('route', 'no', null),
        edge('route', 'has', 'exists("docs/x.md") && stage == "discover"'),
        edge('route', 'yes', 'contains(reply, "yes")'),
      ],
    );
  const agents = [1, 2, 3, 4].map((id) => makeAgent(id));
  const visited = (events: Parameters<typeof names>[0]) =>
    all(events, 'node')
      .filter((n) => n.state === 'started')
      .map((n) => n.node_key);

  test('the first edge whose condition holds is taken; else the default', async () => {
    const yes = fakePorts({ agents, provider: new ScriptedProvider([{ text: 'yes, go' }, { text: 'took yes' }]) });
    const r1 = await collect(runTurn(makeRequest(branchPack(), yes.ports), SERVER));
    assert.deepEqual(visited(r1.events), ['ask', 'route', 'yes']);
    assert.equal(r1.result.reply, 'took yes');

    const no = fakePorts({ agents, provider: new ScriptedProvider([{ text: 'nope' }, { text: 'took no' }]) });
    const r2 = await collect(runTurn(makeRequest(branchPack(), no.ports), SERVER));
    assert.deepEqual(visited(r2.events), ['ask', 'route', 'no']);
    assert.equal(find(r2.events, 'done')!.reply, 'took no');

    const files = fakePorts({
      agents,
      workspace: new MemoryWorkspace({ 'docs/x.md': 'x' }),
      provider: new ScriptedProvider([{ text: 'yes' }, { text: 'took has' }]),
    });
    const r3 = await collect(runTurn(makeRequest(branchPack(), files.ports), SERVER));
    assert.deepEqual(visited(r3.events), ['ask', 'route', 'has'], 'conditions see the workspace files and the stage');
  });

  test(`a cycle stops after ${MAX_NODES_PER_TURN} nodes with error node_limit`, async () => {
    const pack = makePack(
      [agentNode('a', 1, 'discover'), branchNode('loop', 'discover')],
      [edge('start', 'a'), edge('a', 'loop'), edge('loop', 'a')],
    );
    const provider = new ScriptedProvider([], 'scripted', { text: 'again' });
    const f = fakePorts({ agents: [makeAgent(1)], provider });
    const { events, result } = await collect(runTurn(makeRequest(pack, f.ports), SERVER));
    assert.equal(visited(events).length, MAX_NODES_PER_TURN);
    assert.equal(provider.requests.length, 13, 'a, loop, a, … — 13 agent visits in 25 nodes');
    assert.deepEqual(names(events).slice(-3), ['error', 'workflow', 'done']);
    assert.equal(find(events, 'error')!.code, 'node_limit');
    assert.equal(result.state, 'error');
  });

  test('max_iterations: the model calls are bounded, then error and done', async () => {
    const pack = makePack([agentNode('a', 1, 'discover', { artifact: 'docs/a.md' })], [edge('start', 'a')]);
    const provider = new ScriptedProvider([], 'scripted', { tool_calls: [{ name: 'list_files' }] });
    const f = fakePorts({ agents: [makeAgent(1, { max_iterations: 3 })], provider });
    const { events, result } = await collect(runTurn(makeRequest(pack, f.ports), SERVER));
    assert.equal(provider.requests.length, 3);
    assert.equal(all(events, 'tool_result').length, 3);
    assert.deepEqual(names(events).slice(-3), ['error', 'workflow', 'done']);
    assert.equal(find(events, 'error')!.code, 'max_iterations');
    assert.equal(find(events, 'done')!.state, 'error');
    assert.equal(f.workspace.content('docs/a.md'), undefined, 'no artifact from a failed agent');
    assert.equal(result.tool_calls.length, 3, 'what the tools did is still reported');
    assert.deepEqual(result.usage, { input_tokens: 30, output_tokens: 15 });
  });
});

describe('runTurn: tools inside the loop', () => {
  const pack = () => makePack([agentNode('a', 1, 'discover')], [edge('start', 'a')]);

  test('path escapes are refused as tool errors and the loop goes on', async () => {
    const provider = new ScriptedProvider([
      {
        tool_calls: [
          { name: 'write_file', arguments: { path: '../x', content: 'x' } },
          { name: 'read_file', arguments: { path: '/etc/passwd' } },
          { name: 'read_file', arguments: { path: 'a\\b' } },
        ],
      },
      { text: 'could not' },
    ]);
    const f = fakePorts({ agents: [makeAgent(1)], provider });
    const { events, result } = await collect(runTurn(makeRequest(pack(), f.ports), SERVER));
    const results = all(events, 'tool_result');
    assert.deepEqual(
      results.map((r) => r.ok),
      [false, false, false],
    );
    assert.match(results[0].error!, /\.\./);
    assert.match(results[1].error!, /relative/);
    assert.match(results[2].error!, /backslash/);
    assert.equal(result.state, 'done');
    assert.equal(result.reply, 'could not');
    assert.equal(f.workspace.files.size, 0);
    // the model saw the failures as tool results, in order
    const toolMsgs = provider.requests[1].messages.filter((m) => m.role === 'tool');
    assert.equal(toolMsgs.length, 3);
    assert.equal(JSON.parse(toolMsgs[0].content).ok, false);
    assert.deepEqual(
      toolMsgs.map((m) => m.tool_call_id),
      ['call_1_1', 'call_1_2', 'call_1_3'],
    );
  });

  test('a tool outside the allowlist is not offered and is refused if called anyway', async () => {
    const provider = new ScriptedProvider([
      { tool_calls: [{ name: 'write_file', arguments: { path: 'a.md', content: 'x' } }, { name: 'list_files' }] },
      { text: 'ok' },
    ]);
    const f = fakePorts({ agents: [makeAgent(1, { tools: ['list_files', 'read_file'] })], provider });
    const { events } = await collect(runTurn(makeRequest(pack(), f.ports), SERVER));
    assert.deepEqual(
      provider.requests[0].tools.map((t) => t.name),
      ['list_files', 'read_file'],
    );
    const results = all(events, 'tool_result');
    assert.equal(results[0].ok, false);
    assert.match(results[0].error!, /not allowed/);
    assert.equal(results[1].ok, true, 'the next call still runs');
    assert.equal(f.workspace.files.size, 0);
  });

  test('a read-only workspace offers no writing tools and refuses them; no artifact is written', async () => {
    const provider = new ScriptedProvider([
      { tool_calls: [{ name: 'write_file', arguments: { path: 'a.md', content: 'x' } }] },
      { text: 'ok' },
    ]);
    const ws = new MemoryWorkspace({ 'README.md': '# Hi' }, true);
    const p = makePack([agentNode('a', 1, 'discover', { artifact: 'docs/a.md' })], [edge('start', 'a')]);
    const f = fakePorts({ agents: [makeAgent(1)], provider, workspace: ws });
    const { events, result } = await collect(runTurn(makeRequest(p, f.ports), SERVER));
    assert.deepEqual(
      provider.requests[0].tools.map((t) => t.name),
      ['list_files', 'read_file', 'search_files'],
    );
    assert.match(find(events, 'tool_result')!.error!, /read-only/);
    assert.equal(result.state, 'done');
    assert.deepEqual(ws.writes, []);
  });
});
