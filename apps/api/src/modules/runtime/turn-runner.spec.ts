import assert from 'node:assert/strict';
import {
  agentNode,
  all,
  collect,
  edge,
  fakePorts,
  find,
  makeAgent,
  makePack,
  makeRequest,
  names,
  ScriptedProvider,
  SERVER,
} from './test-support';
import { runTurn } from './turn-runner';

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
