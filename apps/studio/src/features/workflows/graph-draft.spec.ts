import assert from 'node:assert/strict';
import type { GraphEdge, GraphNode } from '../../shared/api-types';
import {
  START_ID,
  addNode,
  applyLayout,
  commit,
  connect,
  deleteElements,
  draftFromGraph,
  draftToGraph,
  historyFrom,
  isDirty,
  markSaved,
  moveEdge,
  moveNodes,
  copySelection,
  pasteClip,
  NODE_H,
  NODE_W,
  redo,
  setArtifact,
  undo,
  uniqueNodeKey,
  updateEdge,
  updateNode,
} from './graph-draft';

const node = (node_key: string, extra: Partial<GraphNode> = {}): GraphNode => ({
  node_key,
  type: 'agent',
  agent_id: 1,
  stage_label: 'discover',
  config: {},
  position_x: 0,
  position_y: 0,
  ...extra,
});
const edge = (from_node: string, to_node: string, condition: string | null = null): GraphEdge => ({
  from_node,
  to_node,
  condition,
});

const sample = () =>
  draftFromGraph({
    nodes: [
      node('discover_agent', { position_x: 100, position_y: 40 }),
      node('gate_1', { type: 'gate', agent_id: null, position_x: 300 }),
      node('design_agent', { stage_label: 'design', position_x: 500, config: { artifact: 'docs/design.md' } }),
    ],
    edges: [edge('start', 'discover_agent'), edge('discover_agent', 'gate_1'), edge('gate_1', 'design_agent')],
  });

describe('draftFromGraph / draftToGraph', () => {
  it('round-trips nodes, edges (with start) and order', () => {
    const graph = {
      nodes: [node('a', { position_x: 10, position_y: 20 }), node('b', { type: 'branch', agent_id: null })],
      edges: [edge('start', 'a'), edge('a', 'b'), edge('b', 'a', 'contains(reply, "x")')],
    };
    const d = draftFromGraph(graph);
    assert.equal(d.nodes.length, 2);
    assert.equal(d.edges[0].source, START_ID);
    assert.deepEqual(draftToGraph(d), graph);
  });

  it('drops edges with unknown ends and places start left of the first node', () => {
    const d = draftFromGraph({
      nodes: [node('a', { position_x: 100, position_y: 50 })],
      edges: [edge('start', 'a'), edge('a', 'ghost')],
    });
    assert.equal(d.edges.length, 1);
    assert.ok(d.start.x < 100);
    assert.equal(d.start.y, 50);
  });

  it('turns empty conditions into null', () => {
    let d = sample();
    d = updateEdge(d, d.edges[1].id, { condition: '   ' });
    assert.equal(draftToGraph(d).edges[1].condition, null);
  });
});

describe('addNode', () => {
  it('gives each new node a unique key', () => {
    let d = sample();
    const a = addNode(d, { type: 'agent', position: { x: 1, y: 2 }, stage_label: 'design' });
    d = a.draft;
    const b = addNode(d, { type: 'agent', position: { x: 3, y: 4 } });
    d = b.draft;
    const keys = d.nodes.map((n) => n.node_key);
    assert.equal(new Set(keys).size, keys.length);
    assert.equal(keys.at(-2), 'agent_1');
    assert.equal(keys.at(-1), 'agent_2');
    assert.notEqual(a.uid, b.uid);
    const added = d.nodes.find((n) => n.uid === a.uid)!;
    assert.deepEqual([added.position_x, added.position_y, added.stage_label], [1, 2, 'design']);
  });

  it('never reuses start or an existing key, and gates carry no agent', () => {
    assert.equal(uniqueNodeKey('start', []), 'start_1');
    assert.equal(uniqueNodeKey('gate', [{ node_key: 'gate_1' }]), 'gate_2');
    assert.equal(uniqueNodeKey('my node!', []), 'my_node_1');
    const { draft } = addNode(sample(), { type: 'gate', position: { x: 0, y: 0 }, agent_id: 5 });
    assert.equal(draft.nodes.at(-1)!.agent_id, null);
    assert.equal(draft.nodes.at(-1)!.node_key, 'gate_2');
  });

  it('does not mutate the input draft', () => {
    const d = sample();
    const before = JSON.stringify(d);
    addNode(d, { type: 'branch', position: { x: 0, y: 0 } });
    assert.equal(JSON.stringify(d), before);
  });
});

describe('connect', () => {
  it('adds an edge between two nodes and from start', () => {
    const d = sample();
    const [a, , c] = d.nodes;
    const r = connect(d, a.uid, c.uid);
    assert.equal(r.error, null);
    assert.equal(r.draft.edges.length, 4);
    const g = draftToGraph(r.draft);
    assert.deepEqual(g.edges.at(-1), edge('discover_agent', 'design_agent'));
    const s = connect(d, START_ID, c.uid);
    assert.equal(s.error, null);
    assert.equal(draftToGraph(s.draft).edges.at(-1)!.from_node, 'start');
  });

  it('refuses edges into start, self loops, duplicates and unknown nodes', () => {
    const d = sample();
    const [a, b] = d.nodes;
    assert.match(connect(d, a.uid, START_ID).error ?? '', /start/);
    assert.ok(connect(d, a.uid, a.uid).error);
    assert.ok(connect(d, a.uid, b.uid).error, 'already connected');
    assert.ok(connect(d, a.uid, 'nope').error);
    assert.equal(connect(d, a.uid, START_ID).draft, d);
  });
});

describe('deleteElements', () => {
  it('removes a node with every edge touching it', () => {
    const d = sample();
    const gate = d.nodes[1];
    const next = deleteElements(d, { nodeIds: [gate.uid] });
    assert.equal(next.nodes.length, 2);
    assert.deepEqual(draftToGraph(next).edges, [edge('start', 'discover_agent')]);
  });

  it('removes edges by id, never the start node, and is a no-op for nothing', () => {
    const d = sample();
    const next = deleteElements(d, { edgeIds: [d.edges[0].id], nodeIds: [START_ID] });
    assert.equal(next.nodes.length, 3);
    assert.equal(next.edges.length, 2);
    assert.equal(deleteElements(d, {}), d);
    assert.equal(deleteElements(d, { nodeIds: ['missing'] }), d);
  });
});

describe('property edits', () => {
  it('renaming a node key keeps its edges', () => {
    const d = sample();
    const next = updateNode(d, d.nodes[0].uid, { node_key: 'research' });
    assert.deepEqual(draftToGraph(next).edges.slice(0, 2), [edge('start', 'research'), edge('research', 'gate_1')]);
  });

  it('switching a node away from agent clears agent_id; artifact is set and cleared', () => {
    let d = sample();
    const uid = d.nodes[0].uid;
    d = updateNode(d, uid, { type: 'branch' });
    assert.equal(d.nodes[0].agent_id, null);
    d = setArtifact(d, uid, 'docs/prd.md');
    assert.deepEqual(d.nodes[0].config, { artifact: 'docs/prd.md' });
    d = setArtifact(d, uid, '');
    assert.deepEqual(d.nodes[0].config, {});
  });

  it('moves an edge among the edges of the same source', () => {
    let d = sample();
    const a = d.nodes[0].uid;
    d = connect(d, a, d.nodes[2].uid).draft;
    const last = d.edges.at(-1)!.id;
    d = moveEdge(d, last, -1);
    assert.deepEqual(
      draftToGraph(d)
        .edges.filter((e) => e.from_node === 'discover_agent')
        .map((e) => e.to_node),
      ['design_agent', 'gate_1'],
    );
    assert.equal(moveEdge(d, d.edges[0].id, -1), d);
  });
});

describe('moveNodes / applyLayout', () => {
  it('keeps unchanged nodes identical (cheap re-render) and moves start', () => {
    const d = sample();
    const moved = moveNodes(
      d,
      new Map([
        [d.nodes[1].uid, { x: 9, y: 9 }],
        [START_ID, { x: -5, y: 1 }],
      ]),
    );
    assert.equal(moved.nodes[0], d.nodes[0]);
    assert.notEqual(moved.nodes[1], d.nodes[1]);
    assert.deepEqual(moved.start, { x: -5, y: 1 });
    assert.equal(moveNodes(d, new Map([[d.nodes[0].uid, { x: 100, y: 40 }]])), d);
  });

  it('takes positions from a laid-out graph', () => {
    const d = sample();
    const g = draftToGraph(d);
    const laid = { nodes: g.nodes.map((n, i) => ({ ...n, position_x: i * 260, position_y: 0 })) };
    const next = applyLayout(d, laid);
    assert.deepEqual(
      next.nodes.map((n) => n.position_x),
      [0, 260, 520],
    );
    assert.ok(next.start.x < 0);
  });
});

describe('history', () => {
  it('undoes and redoes, and knows when the draft is dirty', () => {
    let h = historyFrom(sample());
    assert.equal(isDirty(h), false);
    const d1 = addNode(h.draft, { type: 'gate', position: { x: 0, y: 0 } }).draft;
    h = commit(h, d1);
    assert.equal(isDirty(h), true);
    h = undo(h);
    assert.equal(isDirty(h), false, 'undo back to the saved draft is clean');
    h = redo(h);
    assert.equal(h.draft, d1);
    h = markSaved(h);
    assert.equal(isDirty(h), false);
  });

  it('coalesces consecutive edits with the same key into one undo step', () => {
    let h = historyFrom(sample());
    const uid = h.draft.nodes[0].uid;
    for (const key of ['r', 're', 'res']) h = commit(h, updateNode(h.draft, uid, { node_key: key }), `key:${uid}`);
    assert.equal(h.past.length, 1);
    h = undo(h);
    assert.equal(h.draft.nodes[0].node_key, 'discover_agent');
  });

  it('a new edit clears redo and identical drafts are not recorded', () => {
    let h = historyFrom(sample());
    h = commit(h, addNode(h.draft, { type: 'gate', position: { x: 0, y: 0 } }).draft);
    h = undo(h);
    h = commit(h, addNode(h.draft, { type: 'branch', position: { x: 0, y: 0 } }).draft);
    assert.equal(h.future.length, 0);
    assert.equal(commit(h, h.draft), h);
  });
});

describe('copy, paste, duplicate', () => {
  it('pastes the selected nodes with their inner edges, new keys, beside the originals', () => {
    const d = sample();
    const sel = new Set([d.nodes[0].uid, d.nodes[1].uid]);
    const clip = copySelection(d, sel)!;
    assert.equal(clip.edges.length, 1, 'only the edge between the two copied nodes');
    const { draft, uids } = pasteClip(d, clip);
    assert.equal(draft.nodes.length, 5);
    const pasted = draft.nodes.filter((n) => uids.includes(n.uid));
    assert.deepEqual(
      pasted.map((n) => n.node_key),
      ['discover_agent_copy_1', 'gate_1_copy_1'],
    );
    assert.deepEqual(
      pasted.map((n) => n.stage_label),
      ['discover', 'discover'],
    );
    assert.equal(pasted[0].agent_id, 1);
    assert.ok(draft.edges.some((e) => e.source === uids[0] && e.target === uids[1]));
    for (const p of pasted) {
      for (const n of d.nodes)
        assert.ok(
          Math.abs(n.position_x - p.position_x) >= NODE_W || Math.abs(n.position_y - p.position_y) >= NODE_H,
          `${p.node_key} lands on ${n.node_key}`,
        );
    }
    // pasting again gives other keys
    const again = pasteClip(draft, clip);
    assert.deepEqual(
      again.draft.nodes.slice(-2).map((n) => n.node_key),
      ['discover_agent_copy_2', 'gate_1_copy_2'],
    );
    assert.equal(copySelection(d, new Set()), null);
  });
});
