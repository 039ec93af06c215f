import assert from 'node:assert/strict';
import {
  agentNode,
  all,
  branchNode,
  collect,
  edge,
  fakePorts,
  find,
  gateNode,
  makeAgent,
  makePack,
  makeRequest,
  MemoryWorkspace,
  names,
  ScriptedProvider,
  SERVER,
} from './test-support';
import { MAX_NODES_PER_TURN, runTurn } from './turn-runner';

/** start → write (discover, artifact docs/out.md) → gate1 → design (design stage) */
function gatedPack() {
  return makePack(
    [
      agentNode('write', 1, 'discover', { artifact: 'docs/out.md' }),
      gateNode('gate1', 'discover'),
      agentNode('design', 2, 'design', { artifact: 'docs/design.md' }),
    ],
    [edge('start', 'write'), edge('write', 'gate1'), edge('gate1', 'design')],
  );
}

describe('runTurn: event order', () => {
  test('a one-agent turn emits the exact sequence, writes the artifact and returns the result', async () => {
    const pack = makePack(
      [agentNode('solo', 1, 'discover', { artifact: 'docs/out.md', tone: 'brief' })],
      [edge('start', 'solo')],
    );
    const provider = new ScriptedProvider([
      { tool_calls: [{ name: 'write_file', arguments: { path: 'notes.md', content: 'n' } }] },
      { text: 'All done here.' },
    ]);
    const f = fakePorts({ agents: [makeAgent(1)], provider });
    const { events, result } = await collect(runTurn(makeRequest(pack, f.ports), SERVER));
    assert.deepEqual(names(events), [
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
      'workflow',
      'done',
    ]);
    // the status event names the model the first agent runs on (here the ports' scripted provider), not the server default
    assert.deepEqual(events[0].data, { run_id: 'run-1', state: 'running', provider: 'scripted', model: 'test-model' });
    assert.deepEqual(events[1].data, {
      pack_id: 7,
      slug: 'test-pack',
      name: 'Test pack',
      domain: 'pdlc',
      stages: ['discover', 'design', 'develop'],
    });
    assert.deepEqual(events[2].data, {
      project_slug: 'proj',
      domain: 'pdlc',
      stage: 'discover',
      pack_id: 7,
      awaiting_gate: null,
    });
    assert.deepEqual(events[3].data, { node_key: 'solo', type: 'agent', stage_label: 'discover', state: 'started' });
    assert.deepEqual(find(events, 'agent'), {
      agent_id: 1,
      name: 'Agent 1',
      role: 'tester',
      model: 'test-model',
      provider: 'scripted',
    });
    assert.equal(
      all(events, 'content')
        .map((d) => d.delta)
        .join(''),
      'All done here.',
    );
    assert.deepEqual(all(events, 'files_changed'), [
      { files: [{ path: 'notes.md', change: 'added', revision: 1 }] },
      { files: [{ path: 'docs/out.md', change: 'added', revision: 1 }] },
    ]);
    assert.equal(f.workspace.content('docs/out.md'), 'All done here.', 'the final reply is the artifact');
    assert.deepEqual(events.at(-1)!.data, {
      run_id: 'run-1',
      reply: 'All done here.',
      usage: { input_tokens: 20, output_tokens: 10 },
      state: 'done',
    });
    assert.equal(result.state, 'done');
    assert.equal(result.node_key, 'solo');
    assert.deepEqual(result.agent, { id: 1, name: 'Agent 1', role: 'tester' });
    assert.deepEqual(result.tool_calls, [
      { name: 'write_file', arguments: { path: 'notes.md', content: 'n' }, ok: true },
    ]);
    assert.deepEqual(
      result.files_changed.map((c) => c.path),
      ['notes.md', 'docs/out.md'],
    );
    assert.equal(result.error, null);
    assert.deepEqual(f.saved, [], 'nothing moved, nothing saved');

    // the system prompt: agent prompt, skills, then the context with exactly one artifact line
    const system = provider.requests[0].system;
    assert.match(system, /^You are agent 1\./);
    assert.match(system, /Stage: discover\n/);
    assert.match(system, /Pack: Test pack/);
    assert.match(system, /Node config: \{"artifact":"docs\/out.md","tone":"brief"\}/);
    assert.equal(system.match(/^Artifact to produce: docs\/out\.md$/gm)?.length, 1);
    assert.deepEqual(provider.requests[0].messages, [{ role: 'user', content: 'hello' }]);
  });

  test('without deps, status names the default that the ports give', async () => {
    const pack = makePack([agentNode('solo', 1, 'discover')], [edge('start', 'solo')]);
    const f = fakePorts({
      agents: [makeAgent(1)],
      provider: new ScriptedProvider([{ text: 'x' }]),
      model: 'default-model',
    });
    const { events } = await collect(runTurn(makeRequest(pack, f.ports)));
    assert.deepEqual(events[0].data, {
      run_id: 'run-1',
      state: 'running',
      provider: 'scripted',
      model: 'default-model',
    });
  });

  test('the agent writing its artifact itself is not overwritten by the reply', async () => {
    const pack = makePack([agentNode('solo', 1, 'discover', { artifact: './docs/out.md' })], [edge('start', 'solo')]);
    const provider = new ScriptedProvider([
      { tool_calls: [{ name: 'write_file', arguments: { path: 'docs//out.md', content: 'my own' } }] },
      { text: 'wrote it' },
    ]);
    const f = fakePorts({ agents: [makeAgent(1)], provider });
    const { events } = await collect(runTurn(makeRequest(pack, f.ports), SERVER));
    assert.equal(f.workspace.content('docs/out.md'), 'my own');
    assert.equal(all(events, 'files_changed').length, 1);
  });

  test('history comes before the message; temperature and max_tokens come from the model record', async () => {
    const pack = makePack([agentNode('solo', 1, 'discover')], [edge('start', 'solo')]);
    const provider = new ScriptedProvider([{ text: 'hi' }]);
    const model = {
      provider: 'custom' as const,
      model_id: 'm-1',
      api_base: 'http://x',
      api_key: null,
      temperature: 0.3,
      max_tokens: 99,
    };
    const f = fakePorts({ agents: [makeAgent(1, { model, skill_prompts: ['SKILL ONE', 'SKILL TWO'] })], provider });
    const history = [
      { role: 'user' as const, content: 'before' },
      { role: 'assistant' as const, content: 'earlier answer' },
    ];
    await collect(runTurn(makeRequest(pack, f.ports, { history }), SERVER));
    const r = provider.requests[0];
    assert.deepEqual(r.messages, [...history, { role: 'user', content: 'hello' }]);
    assert.equal(r.temperature, 0.3);
    assert.equal(r.maxTokens, 99);
    assert.equal(r.model, 'm-1');
    assert.ok(
      r.system.indexOf('You are agent 1') < r.system.indexOf('SKILL ONE') &&
        r.system.indexOf('SKILL ONE') < r.system.indexOf('SKILL TWO'),
    );
    assert.ok(r.system.indexOf('SKILL TWO') < r.system.indexOf('## Context'));
    assert.ok(!/Artifact to produce/.test(r.system), 'no artifact line without config.artifact');
  });
});

describe('runTurn: gates and stages', () => {
  test('a gate stops the turn with awaiting_gate and records it', async () => {
    const provider = new ScriptedProvider([{ text: 'discovered' }]);
    const f = fakePorts({ agents: [makeAgent(1), makeAgent(2)], provider });
    const { events, result } = await collect(runTurn(makeRequest(gatedPack(), f.ports), SERVER));
    assert.deepEqual(names(events), [
      'status',
      'pack',
      'workflow',
      'node',
      'agent',
      'content',
      'files_changed',
      'node',
      'node',
      'node',
      'awaiting_gate',
      'workflow',
      'done',
    ]);
    const gate = { node_key: 'gate1', stage: 'discover', next_stage: 'design' };
    assert.deepEqual(find(events, 'awaiting_gate'), gate);
    assert.deepEqual(all(events, 'node').slice(2), [
      { node_key: 'gate1', type: 'gate', stage_label: 'discover', state: 'started' },
      { node_key: 'gate1', type: 'gate', stage_label: 'discover', state: 'finished' },
    ]);
    assert.deepEqual(f.saved, [{ stage: 'discover', awaiting_gate: gate }]);
    assert.deepEqual(events.at(-2)!.data, {
      project_slug: 'proj',
      domain: 'pdlc',
      stage: 'discover',
      pack_id: 7,
      awaiting_gate: gate,
    });
    assert.equal(result.node_key, 'gate1');
    assert.deepEqual(result.awaiting_gate, gate);
    assert.equal(provider.requests.length, 1, 'the design agent did not run');
  });

  test('advance with an empty message only moves: stage event, state saved, no agent', async () => {
    const provider = new ScriptedProvider([]);
    const f = fakePorts({ agents: [makeAgent(1), makeAgent(2)], provider });
    const gate = { node_key: 'gate1', stage: 'discover', next_stage: 'design' };
    const { events, result } = await collect(
      runTurn(makeRequest(gatedPack(), f.ports, { message: '', advance: true, awaiting_gate: gate }), SERVER),
    );
    assert.deepEqual(names(events), ['status', 'pack', 'workflow', 'stage', 'workflow', 'done']);
    assert.deepEqual(find(events, 'stage'), {
      from: 'discover',
      to: 'design',
      index: 1,
      stages: ['discover', 'design', 'develop'],
    });
    assert.deepEqual(f.saved, [{ stage: 'design', awaiting_gate: null }]);
    assert.equal(result.stage, 'design');
    assert.equal(result.awaiting_gate, null);
    assert.equal(result.state, 'done');
    assert.equal(provider.requests.length, 0);
  });

  test('advance with a message moves, then runs the next stage entry agent', async () => {
    const provider = new ScriptedProvider([{ text: 'designing' }]);
    const f = fakePorts({ agents: [makeAgent(1), makeAgent(2)], provider });
    // the gate was not reached yet: advance approves it anyway
    const { events, result } = await collect(
      runTurn(makeRequest(gatedPack(), f.ports, { message: 'now design', advance: true }), SERVER),
    );
    assert.deepEqual(names(events), [
      'status',
      'pack',
      'workflow',
      'stage',
      'node',
      'agent',
      'content',
      'files_changed',
      'node',
      'workflow',
      'done',
    ]);
    assert.equal(find(events, 'agent')!.agent_id, 2);
    assert.equal(find(events, 'node')!.node_key, 'design');
    assert.equal(f.workspace.content('docs/design.md'), 'designing');
    assert.match(provider.requests[0].system, /Stage: design\n/);
    assert.equal(result.stage, 'design');
    assert.equal(result.node_key, 'design');
  });

  test('advance at the last stage → error last_stage, then workflow and done', async () => {
    const f = fakePorts({ agents: [makeAgent(1)], provider: new ScriptedProvider([]) });
    const { events, result } = await collect(
      runTurn(makeRequest(gatedPack(), f.ports, { message: '', advance: true, stage: 'develop' }), SERVER),
    );
    assert.deepEqual(names(events), ['status', 'pack', 'workflow', 'error', 'workflow', 'done']);
    assert.equal(find(events, 'error')!.code, 'last_stage');
    assert.match(find(events, 'error')!.message, /develop/);
    assert.equal(find(events, 'done')!.state, 'error');
    assert.deepEqual(result.error?.code, 'last_stage');
    assert.equal(result.stage, 'develop');
    assert.deepEqual(f.saved, []);
  });

  test('a message while a gate is pending runs the current stage entry agent again (no move)', async () => {
    const provider = new ScriptedProvider([{ text: 'more discovery' }]);
    const f = fakePorts({ agents: [makeAgent(1), makeAgent(2)], provider });
    const gate = { node_key: 'gate1', stage: 'discover', next_stage: 'design' };
    const { events, result } = await collect(
      runTurn(makeRequest(gatedPack(), f.ports, { awaiting_gate: gate }), SERVER),
    );
    assert.equal(find(events, 'agent')!.agent_id, 1);
    assert.ok(!names(events).includes('stage'));
    assert.deepEqual(result.awaiting_gate, gate);
  });

  test('an edge into another stage without a gate moves the project there and goes on', async () => {
    const pack = makePack(
      [agentNode('a', 1, 'discover'), agentNode('b', 2, 'design')],
      [edge('start', 'a'), edge('a', 'b')],
    );
    const f = fakePorts({
      agents: [makeAgent(1), makeAgent(2)],
      provider: new ScriptedProvider([{ text: 'one' }, { text: 'two' }]),
    });
    const { events, result } = await collect(runTurn(makeRequest(pack, f.ports), SERVER));
    assert.deepEqual(names(events), [
      'status',
      'pack',
      'workflow',
      'node',
      'agent',
      'content',
      'node',
      'stage',
      'node',
      'agent',
      'content',
      'node',
      'workflow',
      'done',
    ]);
    assert.deepEqual(find(events, 'stage'), {
      from: 'discover',
      to: 'design',
      index: 1,
      stages: ['discover', 'design', 'develop'],
    });
    assert.deepEqual(f.saved, [{ stage: 'design', awaiting_gate: null }]);
    assert.equal(result.reply, 'two');
    assert.equal(result.stage, 'design');
  });

  test('node_key picks the node (moving to its stage); an unknown node_key is an error', async () => {
    const f = fakePorts({ agents: [makeAgent(1), makeAgent(2)], provider: new ScriptedProvider([{ text: 'direct' }]) });
    const { events, result } = await collect(
      runTurn(makeRequest(gatedPack(), f.ports, { node_key: 'design' }), SERVER),
    );
    assert.equal(find(events, 'agent')!.agent_id, 2);
    assert.equal(result.stage, 'design');
    const bad = await collect(runTurn(makeRequest(gatedPack(), f.ports, { node_key: 'nope' }), SERVER));
    assert.deepEqual(names(bad.events), ['status', 'pack', 'workflow', 'error', 'workflow', 'done']);
    assert.equal(find(bad.events, 'error')!.code, 'unknown_node');
  });

  test('a missing agent, a stage without agents and an empty message are errors', async () => {
    const f = fakePorts({ agents: [], provider: new ScriptedProvider([]) });
    const missing = await collect(runTurn(makeRequest(gatedPack(), f.ports), SERVER));
    assert.deepEqual(names(missing.events), ['status', 'pack', 'workflow', 'node', 'error', 'workflow', 'done']);
    assert.equal(find(missing.events, 'error')!.code, 'agent_missing');
    const noEntry = await collect(runTurn(makeRequest(gatedPack(), f.ports, { stage: 'develop' }), SERVER));
    assert.equal(find(noEntry.events, 'error')!.code, 'no_entry_node');
    const empty = await collect(runTurn(makeRequest(gatedPack(), f.ports, { message: '  ' }), SERVER));
    assert.equal(find(empty.events, 'error')!.code, 'empty_message');
  });
});

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
