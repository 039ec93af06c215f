import type { Step } from './step-log';
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
  MemoryWorkspace,
  names,
  ScriptedProvider,
  SERVER,
} from './test-support';
import { runTurn } from './turn-runner';

// per-tool approval (approval.ts): write_file waits for a decision, read_file does not
const pack = makePack([agentNode('a1', 1, 'discover')], [edge('start', 'a1')]);
const agent = makeAgent(1, { tools_requiring_approval: ['write_file'] });
const asks = {
  text: 'Reading, then writing. ',
  tool_calls: [
    { name: 'read_file', arguments: { path: 'in.md' }, id: 'c1' },
    { name: 'write_file', arguments: { path: 'out.md', content: 'x' }, id: 'c2' },
  ],
};

async function firstAttempt() {
  const workspace = new MemoryWorkspace({ 'in.md': 'input' });
  const f = fakePorts({ agents: [agent], provider: new ScriptedProvider([asks]), workspace });
  const steps: Step[] = [];
  f.ports.checkpoint = async (s) => void steps.push(JSON.parse(JSON.stringify(s)));
  const out = await collect(runTurn(makeRequest(pack, f.ports), SERVER));
  return { ...out, steps, workspace };
}

async function decided(decision: Step) {
  const first = await firstAttempt();
  const provider = new ScriptedProvider([{ text: 'Done.' }]);
  const f = fakePorts({ agents: [agent], provider, workspace: first.workspace });
  f.ports.checkpoint = async () => undefined;
  const out = await collect(
    runTurn(makeRequest(pack, f.ports, { resume: { steps: [...first.steps, decision] } }), SERVER),
  );
  const tool = provider.requests[0].messages.filter((m) => m.role === 'tool');
  return { ...out, tool, workspace: first.workspace };
}

describe('per-tool approval in the turn runner', () => {
  test('a call requiring approval stops the turn after the calls before it ran: approval event, state awaiting_approval', async () => {
    const { events, result, steps, workspace } = await firstAttempt();
    expect(result.state).toBe('awaiting_approval');
    expect(result.error).toBeNull();
    expect(result.approval).toEqual({ call_id: 'c2', name: 'write_file', arguments: { path: 'out.md', content: 'x' } });
    expect(find(events, 'approval')).toEqual(result.approval);
    expect(names(events).slice(-3)).toEqual(['approval', 'workflow', 'done']);
    expect(find(events, 'done')!.state).toBe('awaiting_approval');
    // the read ran and is recorded; the write did not run
    expect(steps.map((s) => s.step)).toEqual(['node', 'model', 'tool']);
    expect(workspace.writes).toHaveLength(0);
  });

  test('approve: the recorded steps are replayed (muted) and the write runs', async () => {
    const { events, result, tool, workspace } = await decided({ step: 'decision', call_id: 'c2', decision: 'approve' });
    expect(result.state).toBe('done');
    expect(result.reply).toBe('Done.');
    expect(workspace.writes).toEqual(['out.md']);
    expect(tool.map((m) => m.tool_call_id)).toEqual(['c1', 'c2']);
    // the replayed read is muted; the write's result is live
    expect(all(events, 'tool_result').map((r) => r.call_id)).toEqual(['c2']);
  });

  test('reject: nothing is written and the model reads the reason', async () => {
    const { tool, workspace, result } = await decided({
      step: 'decision',
      call_id: 'c2',
      decision: 'reject',
      reason: 'not now',
    });
    expect(workspace.writes).toHaveLength(0);
    expect(JSON.parse(tool[1].content)).toEqual({ ok: false, error: 'The user rejected this call: not now' });
    expect(result.tool_calls.at(-1)).toMatchObject({ name: 'write_file', ok: false });
  });

  test('edit: the tool runs with the edited arguments', async () => {
    const { workspace, result } = await decided({
      step: 'decision',
      call_id: 'c2',
      decision: 'edit',
      arguments: { path: 'other.md', content: 'y' },
    });
    expect(workspace.writes).toEqual(['other.md']);
    expect(result.tool_calls.at(-1)).toEqual({
      name: 'write_file',
      arguments: { path: 'other.md', content: 'y' },
      ok: true,
    });
  });
});
