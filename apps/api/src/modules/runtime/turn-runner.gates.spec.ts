import assert from 'node:assert/strict';
import {
  agentNode,
  all,
  collect,
  edge,
  fakePorts,
  find,
  gateNode,
  makeAgent,
  makePack,
  makeRequest,
  names,
  ScriptedProvider,
  SERVER,
} from './test-support';
import { runTurn } from './turn-runner';

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
