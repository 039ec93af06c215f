import type { RuntimeEvent, TurnResult } from './runtime.types';
import type { Step } from './step-log';
import {
  agentNode,
  all,
  collect,
  edge,
  fakePorts,
  makeAgent,
  makePack,
  makeRequest,
  MemoryWorkspace,
  names,
  ScriptedProvider,
  SERVER,
  type ScriptStep,
} from './test-support';
import { runTurn } from './turn-runner';

// two agents in two stages: tools that write, edit and read, an artifact, a stage move
const pack = makePack(
  [agentNode('a1', 1, 'discover', { artifact: 'docs/a.md' }), agentNode('a2', 2, 'design')],
  [edge('start', 'a1'), edge('a1', 'a2')],
);
const script: ScriptStep[] = [
  {
    text: 'Let me plan. ',
    tool_calls: [
      { name: 'write_file', arguments: { path: 'notes.md', content: 'v1' } },
      { name: 'read_file', arguments: { path: 'notes.md' } },
    ],
  },
  { tool_calls: [{ name: 'edit_file', arguments: { path: 'notes.md', old: 'v1', new: 'v2' } }] },
  { text: 'First agent done.' },
  { text: 'Second. ', tool_calls: [{ name: 'write_file', arguments: { path: 'b.md', content: 'b' } }] },
  { text: 'All done.' },
];

interface Recorded {
  step: Step;
  /** events emitted before the step was recorded (what a crash right after it leaves stored) */
  events: number;
  /** the workspace when the step was recorded */
  workspace: MemoryWorkspace;
}

async function uninterrupted() {
  const provider = new ScriptedProvider(script);
  const f = fakePorts({ agents: [makeAgent(1), makeAgent(2)], provider });
  const recorded: Recorded[] = [];
  const events: RuntimeEvent[] = [];
  f.ports.checkpoint = async (step) => {
    recorded.push({ step: JSON.parse(JSON.stringify(step)), events: events.length, workspace: f.workspace.snapshot() });
  };
  const gen = runTurn(makeRequest(pack, f.ports), SERVER);
  let result: TurnResult;
  for (;;) {
    const s = await gen.next();
    if (s.done) {
      result = s.value;
      break;
    }
    events.push(s.value);
  }
  return { events, result, recorded, workspace: f.workspace };
}

async function resume(steps: Step[], workspace: MemoryWorkspace) {
  const modelCalls = steps.filter((s) => s.step === 'model').length;
  const provider = new ScriptedProvider(script.slice(modelCalls));
  const f = fakePorts({ agents: [makeAgent(1), makeAgent(2)], provider, workspace });
  const written: Step[] = [];
  f.ports.checkpoint = async (s) => void written.push(s);
  const before = workspace.writes.length;
  const out = await collect(runTurn(makeRequest(pack, f.ports, { resume: { steps } }), SERVER));
  return { ...out, provider, written, newWrites: workspace.writes.slice(before), workspace };
}

const text = (events: RuntimeEvent[]) =>
  all(events, 'content')
    .map((d) => d.delta)
    .join('');

describe('runTurn: resume from checkpoints', () => {
  test('a resume after any recorded step finishes like the uninterrupted turn: no model call or tool repeated', async () => {
    const full = await uninterrupted();
    expect(full.result.state).toBe('done');
    expect(full.recorded.map((r) => r.step.step)).toEqual([
      'node',
      'model',
      'tool',
      'tool',
      'model',
      'tool',
      'model',
      'stage',
      'node',
      'model',
      'tool',
      'model',
    ]);
    for (let k = 0; k <= full.recorded.length; k++) {
      const steps = full.recorded.slice(0, k).map((r) => r.step);
      const stored = k === 0 ? [] : full.events.slice(0, full.recorded[k - 1].events);
      const ws = k === 0 ? new MemoryWorkspace() : full.recorded[k - 1].workspace.snapshot();
      const r = await resume(steps, ws);
      const seen = [...stored, ...r.events];
      expect({ k, names: names(seen), text: text(seen) }).toEqual({
        k,
        names: names(full.events),
        text: text(full.events),
      });
      expect({ k, result: r.result }).toEqual({ k, result: full.result });
      // only the model calls not recorded are made; only the rest of the steps are recorded
      expect(r.provider.requests.length).toBe(script.length - steps.filter((s) => s.step === 'model').length);
      expect(r.written.map((s) => s.step)).toEqual(full.recorded.slice(k).map((x) => x.step.step));
      expect([...r.workspace.files]).toEqual([...full.workspace.files]);
    }
  });

  test('a write that landed just before the crash (its step not recorded) is not applied again', async () => {
    const full = await uninterrupted();
    // the edit_file call: its write landed, then the process died before its step was stored
    const i = full.recorded.findIndex((r) => r.step.step === 'tool' && r.workspace.content('notes.md') === 'v2');
    const steps = full.recorded.slice(0, i).map((r) => r.step);
    const r = await resume(steps, full.recorded[i].workspace.snapshot());
    expect(r.result).toEqual(full.result);
    expect(r.newWrites).not.toContain('notes.md');
    expect(r.workspace.content('notes.md')).toBe('v2');
    // the model is told what the edit did, as if it had run now
    const toolMessage = r.provider.requests[0].messages.at(-1);
    expect(toolMessage).toMatchObject({ role: 'tool', content: 'Edited notes.md (revision 2).' });
  });

  test('the artifact written just before a crash is not written again', async () => {
    const full = await uninterrupted();
    // crash after the artifact landed, before the stage step
    const i = full.recorded.findIndex((r) => r.step.step === 'stage');
    const r = await resume(
      full.recorded.slice(0, i).map((x) => x.step),
      full.recorded[i].workspace.snapshot(),
    );
    expect(r.result).toEqual(full.result);
    expect(r.newWrites).toEqual(['b.md']);
  });

  test('recorded steps that no longer match the pack fail the resume with a reason', async () => {
    const full = await uninterrupted();
    const steps = full.recorded.map((r) => r.step);
    steps[0] = { step: 'node', node_key: 'gone' };
    const r = await resume(steps.slice(0, 3), new MemoryWorkspace());
    expect(r.result.state).toBe('error');
    expect(r.result.error?.code).toBe('resume_failed');
    expect(names(r.events).slice(-3)).toEqual(['error', 'workflow', 'done']);
  });
});
