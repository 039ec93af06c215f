import assert from 'node:assert/strict';
import {
  failTurn,
  newTurn,
  reduceTurn,
  stopTurn,
  turnSummary,
  type StreamEventLike,
  type Turn,
} from './turn-transcript';
import { buildFileTree } from './file-tree';

let seq = 0;
const ev = (name: string, data: unknown = {}): StreamEventLike => ({ id: `7:${++seq}`, name, data });
const fold = (events: StreamEventLike[], t: Turn = newTurn('t1', 'hello', false)) => events.reduce(reduceTurn, t);

describe('reduceTurn', () => {
  it('a resumed run drops what came after its last checkpoint: the reply is not doubled', () => {
    const t = fold([
      { id: 'r:1', name: 'status', data: { run_id: 'r', state: 'running', provider: 'p', model: 'm' } },
      { id: 'r:2', name: 'content', data: { delta: 'Planning. ' } },
      { id: 'r:3', name: 'tool_call', data: { call_id: 'c1', name: 'write_file', arguments: {} } },
      { id: 'r:4', name: 'tool_result', data: { call_id: 'c1', name: 'write_file', ok: true, output: 'Created' } },
      { id: 'r:5', name: 'content', data: { delta: 'Now I ed' } },
      // the server died here; the resumed attempt numbers its events above a gap
      { id: 'r:1100005', name: 'status', data: { run_id: 'r', state: 'resumed', attempt: 2, drop_after_seq: 4 } },
      { id: 'r:1100006', name: 'content', data: { delta: 'Now I edit.' } },
    ]);
    assert.deepEqual(
      t.items.map((i) => (i.kind === 'text' ? i.text : i.kind)),
      ['Planning. ', 'tool', 'activity', 'Now I edit.'],
    );
  });

  it('a queued turn (cluster mode) says so until a worker starts it', () => {
    const queued = fold([
      { id: 'q:1', name: 'status', data: { run_id: 'q', state: 'queued', provider: 'p', model: 'm' } },
    ]);
    assert.equal(queued.runId, 'q');
    assert.deepEqual(
      queued.items.map((i) => (i.kind === 'activity' ? i.text : i.kind)),
      ['Queued: waiting for a worker'],
    );
    const running = fold([{ id: 'q:2', name: 'status', data: { run_id: 'q', state: 'running' } }], queued);
    assert.deepEqual(running.items, []);
  });

  it('streams text, groups deltas, and records the run', () => {
    const t = fold([
      ev('status', { run_id: 7, state: 'running', provider: 'offline', model: 'offline-1' }),
      ev('agent', { agent_id: 1, name: 'Design agent', role: 'designer', model: 'm' }),
      ev('content', { delta: 'Hel' }),
      ev('content', { delta: 'lo' }),
      ev('done', { run_id: 7, reply: 'Hello', usage: { input_tokens: 1, output_tokens: 2 }, state: 'succeeded' }),
      ev('close'),
    ]);
    assert.equal(t.runId, '7');
    assert.equal(t.provider, 'offline');
    assert.deepEqual(
      t.items.map((i) => i.kind),
      ['activity', 'text'],
    );
    assert.equal(t.items[0].kind === 'activity' && t.items[0].text, 'Design agent (designer) is working');
    assert.equal(t.items[1].kind === 'text' && t.items[1].text, 'Hello');
    assert.equal(t.status, 'done');
    assert.equal(t.closed, true);
    assert.deepEqual(t.usage, { input_tokens: 1, output_tokens: 2 });
  });

  it('pairs tool results with their calls and splits text around them', () => {
    const t = fold([
      ev('content', { delta: 'Let me look.' }),
      ev('tool_call', { call_id: 'c1', name: 'list_files', arguments: { path: '.' } }),
      ev('tool_result', { call_id: 'c1', name: 'list_files', ok: true, output: 'a.md' }),
      ev('tool_call', { call_id: 'c2', name: 'read_file', arguments: { path: 'x' } }),
      ev('tool_result', { call_id: 'c2', name: 'read_file', ok: false, output: '', error: 'not found' }),
      ev('content', { delta: 'Done.' }),
    ]);
    assert.deepEqual(
      t.items.map((i) => i.kind),
      ['text', 'tool', 'tool', 'text'],
    );
    const [, a, b] = t.items;
    assert.ok(a.kind === 'tool' && a.result?.ok === true && a.name === 'list_files');
    assert.ok(b.kind === 'tool' && b.result?.ok === false && b.result.error === 'not found');
  });

  it('uses the final reply when nothing streamed, and keeps errors', () => {
    const t = fold([
      ev('error', { code: 'max_iterations', message: 'Too many steps' }),
      ev('done', { run_id: 7, reply: 'partial', usage: null, state: 'failed' }),
      ev('close'),
    ]);
    assert.equal(t.status, 'error');
    assert.deepEqual(
      t.items.map((i) => i.kind),
      ['error', 'text'],
    );
  });

  it('shows stage moves, gates, file changes and non-agent nodes', () => {
    const t = fold(
      [
        ev('stage', { from: 'discover', to: 'design', index: 1, stages: [] }),
        ev('node', { node_key: 'design_agent', type: 'agent', stage_label: 'design', state: 'started' }),
        ev('files_changed', { files: [{ path: 'docs/design.md', change: 'added', revision: 1 }] }),
        ev('node', { node_key: 'gate_2', type: 'gate', stage_label: 'design', state: 'started' }),
        ev('awaiting_gate', { node_key: 'gate_2', stage: 'design', next_stage: 'develop' }),
      ],
      newTurn('t2', '', true),
    );
    assert.deepEqual(
      t.items.map((i) => (i.kind === 'activity' ? i.tone : i.kind)),
      ['stage', 'files', 'node', 'gate'],
    );
    const gate = t.items[3];
    assert.ok(gate.kind === 'gate' && gate.gate.next_stage === 'develop');
  });

  it('fails and stops only open turns', () => {
    const open = newTurn('t3', 'x', false);
    assert.equal(failTurn(open, 'lost').status, 'error');
    assert.equal(stopTurn(open).status, 'stopped');
    const closed = reduceTurn(open, ev('close'));
    assert.equal(failTurn(closed, 'lost'), closed);
  });
});

describe('turnSummary', () => {
  it('keeps stage moves, errors and usage of a finished turn, not its messages', () => {
    const t = fold(
      [
        ev('status', { run_id: 'r', state: 'running', provider: 'offline', model: null }),
        ev('stage', { from: 'discover', to: 'design', index: 1, stages: [] }),
        ev('content', { delta: 'hello' }),
        ev('done', { run_id: 'r', reply: 'hello', usage: { input_tokens: 3, output_tokens: 1 }, state: 'done' }),
        ev('close'),
      ],
      newTurn('t', '', true),
    );
    const s = turnSummary(t)!;
    assert.deepEqual(
      s.items.map((i) => (i.kind === 'activity' ? i.text : i.kind)),
      ['Stage discover → design'],
    );
    assert.deepEqual(s.usage, { input_tokens: 3, output_tokens: 1 });
    assert.equal(turnSummary({ ...newTurn('u', 'x', false), closed: true }), null);
  });
});

describe('buildFileTree', () => {
  it('nests folders first, then files, alphabetically', () => {
    const tree = buildFileTree([
      { path: 'README.md' },
      { path: 'docs/prd.md' },
      { path: 'docs/a/b.md' },
      { path: 'app.ts' },
    ]);
    assert.deepEqual(
      tree.children.map((c) => `${c.kind}:${c.name}`),
      ['folder:docs', 'file:app.ts', 'file:README.md'],
    );
    const docs = tree.children[0];
    assert.ok(docs.kind === 'folder');
    assert.deepEqual(
      docs.children.map((c) => `${c.kind}:${c.path}`),
      ['folder:docs/a', 'file:docs/prd.md'],
    );
  });
});
