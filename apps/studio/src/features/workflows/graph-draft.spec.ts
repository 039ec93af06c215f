import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { GraphEdge, GraphNode } from '../../shared/api-types';
import {
  START_ID,
  addNode,
  applyLayout,
  commit,
  connect,
  createFlowCache,
  deleteElements,
  draftFromFlow,
  draftFromGraph,
  draftToGraph,
  historyFrom,
  isDirty,
  mapProblems,
  markSaved,
  mergeProblemMaps,
  moveEdge,
  moveNodes,
  openingFocus,
  LARGE_GRAPH,
  edgeRoute,
  freeSpot,
  copySelection,
  pasteClip,
  stageLanes,
  NODE_H,
  NODE_W,
  PLACEMENT_MARGIN,
  redo,
  setArtifact,
  stageColor,
  toFlowEdges,
  toFlowNodes,
  undo,
  uniqueNodeKey,
  updateEdge,
  updateNode,
  type FlowView,
  type GraphDraft,
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
const edge = (from_node: string, to_node: string, condition: string | null = null): GraphEdge => ({ from_node, to_node, condition });

const sample = () =>
  draftFromGraph({
    nodes: [
      node('discover_agent', { position_x: 100, position_y: 40 }),
      node('gate_1', { type: 'gate', agent_id: null, position_x: 300 }),
      node('design_agent', { stage_label: 'design', position_x: 500, config: { artifact: 'docs/design.md' } }),
    ],
    edges: [edge('start', 'discover_agent'), edge('discover_agent', 'gate_1'), edge('gate_1', 'design_agent')],
  });

const view = (over: Partial<FlowView> = {}): FlowView => ({
  stages: ['discover', 'design'],
  agentName: (id) => (id === null ? null : `Agent ${id}`),
  selected: new Set(),
  problems: null,
  readOnly: false,
  ...over,
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
    const d = draftFromGraph({ nodes: [node('a', { position_x: 100, position_y: 50 })], edges: [edge('start', 'a'), edge('a', 'ghost')] });
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
      draftToGraph(d).edges.filter((e) => e.from_node === 'discover_agent').map((e) => e.to_node),
      ['design_agent', 'gate_1'],
    );
    assert.equal(moveEdge(d, d.edges[0].id, -1), d);
  });
});

describe('moveNodes / applyLayout', () => {
  it('keeps unchanged nodes identical (cheap re-render) and moves start', () => {
    const d = sample();
    const moved = moveNodes(d, new Map([[d.nodes[1].uid, { x: 9, y: 9 }], [START_ID, { x: -5, y: 1 }]]));
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
    assert.deepEqual(next.nodes.map((n) => n.position_x), [0, 260, 520]);
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

describe('mapProblems', () => {
  it('maps nodes[i]/edges[j] fields and node_key warnings onto elements', () => {
    const d = sample();
    const m = mapProblems(
      d,
      [
        { field: 'nodes[2].agent_id', message: 'agent 99 does not exist' },
        { field: 'edges[1].condition', message: 'unexpected token' },
        { field: 'graph', message: 'too many problems' },
      ],
      [{ field: 'nodes[0]', node_key: 'gate_1', message: 'not reachable' }, { field: 'stages', message: 'stage "test" has no agent node' }],
    );
    assert.deepEqual(m.nodes.get(d.nodes[2].uid)!.errors, ['agent_id: agent 99 does not exist']);
    assert.deepEqual(m.edges.get(d.edges[1].id)!.errors, ['condition: unexpected token']);
    assert.deepEqual(m.nodes.get(d.nodes[1].uid)!.warnings, ['not reachable']);
    assert.equal(m.general.length, 2);
    assert.equal(m.errorCount, 3);
    assert.equal(m.warningCount, 2);
  });
});

describe('React Flow conversion', () => {
  it('builds a start node plus one node per draft node, coloured by stage', () => {
    const d = sample();
    const nodes = toFlowNodes(d, view());
    assert.equal(nodes.length, 4);
    assert.equal(nodes[0].id, START_ID);
    assert.equal(nodes[0].deletable, false);
    const first = nodes[1];
    assert.equal(first.type, 'step');
    if (first.type === 'step') {
      assert.equal(first.data.color, stageColor('discover', ['discover', 'design']));
      assert.equal(first.data.agentName, 'Agent 1');
    }
    const edges = toFlowEdges(d, view());
    assert.deepEqual(
      edges.map((e) => [e.source, e.target]),
      [[START_ID, d.nodes[0].uid], [d.nodes[0].uid, d.nodes[1].uid], [d.nodes[1].uid, d.nodes[2].uid]],
    );
  });

  it('reuses React Flow objects for unchanged elements (500 nodes stay cheap)', () => {
    let d: GraphDraft = draftFromGraph({ nodes: [], edges: [] });
    for (let i = 0; i < 500; i++) d = addNode(d, { type: 'agent', position: { x: i * 10, y: 0 }, stage_label: 'discover' }).draft;
    for (let i = 1; i < 500; i++) d = connect(d, d.nodes[i - 1].uid, d.nodes[i].uid).draft;
    const cache = createFlowCache();
    const v = view();
    const a = toFlowNodes(d, v, cache);
    const ea = toFlowEdges(d, v, cache);
    // moved down, not back: its edges stay forward curves (a node moved behind its source would make a loop edge)
    const moved = moveNodes(d, new Map([[d.nodes[10].uid, { x: 100, y: 5 }]]));
    const b = toFlowNodes(moved, v, cache);
    const eb = toFlowEdges(moved, v, cache);
    let changed = 0;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) changed++;
    assert.equal(changed, 1);
    assert.ok(ea.every((e, i) => e === eb[i]));
    assert.equal(eb, ea, 'unchanged edges come back as the same array');
    assert.notEqual(b, a);
  });

  it('marks problems, selection and read-only on the flow elements', () => {
    const d = sample();
    const problems = mapProblems(d, [{ field: 'nodes[0].stage_label', message: 'bad' }, { field: 'edges[0]', message: 'x' }]);
    const nodes = toFlowNodes(d, view({ problems, selected: new Set([d.nodes[0].uid]), readOnly: true }));
    const n = nodes[1];
    assert.equal(n.selected, true);
    assert.equal(n.draggable, false);
    if (n.type === 'step') assert.deepEqual(n.data.errors, ['stage_label: bad']);
    const edges = toFlowEdges(d, view({ problems }));
    assert.match(edges[0].className ?? '', /edge-error/);
  });

  it('labels a branch default edge and round-trips through draftFromFlow', () => {
    let d = sample();
    d = updateNode(d, d.nodes[1].uid, { type: 'branch' });
    d = connect(d, d.nodes[1].uid, d.nodes[0].uid, 'contains(reply, "again")').draft;
    const v = view();
    const edges = toFlowEdges(d, v);
    assert.equal(edges[2].label, 'default');
    assert.equal(edges[3].label, 'contains(reply, "again")');
    const back = draftFromFlow(toFlowNodes(d, v), edges);
    assert.deepEqual(draftToGraph(back), draftToGraph(d));
    const added = addNode(back, { type: 'gate', position: { x: 0, y: 0 } });
    assert.ok(!back.nodes.some((n) => n.uid === added.uid));
  });
});

describe('mergeProblemMaps', () => {
  it('unions client and server problems without repeats', () => {
    const d = sample();
    const client = mapProblems(d, [{ field: 'nodes[0].agent_id', message: 'x' }], [{ field: 'stages', message: 'w' }]);
    const server = mapProblems(d, [{ field: 'nodes[0].agent_id', message: 'x' }, { field: 'nodes[1].stage_label', message: 'y' }]);
    const m = mergeProblemMaps(client, server)!;
    assert.deepEqual(m.nodes.get(d.nodes[0].uid)!.errors, ['agent_id: x']);
    assert.deepEqual(m.nodes.get(d.nodes[1].uid)!.errors, ['stage_label: y']);
    assert.equal(m.errorCount, 2);
    assert.equal(m.warningCount, 1);
    assert.equal(mergeProblemMaps(null, server), server);
  });
});

describe('openingFocus', () => {
  const graphOf = (n: number) =>
    draftFromGraph({
      nodes: Array.from({ length: n }, (_, i) => ({ node_key: `n${i}`, type: 'agent' as const, agent_id: 1, stage_label: null, config: {}, position_x: 1000 - i * 10, position_y: 0 })),
      edges: [],
    });

  it('fits everything for a graph without staged nodes', () => {
    assert.equal(openingFocus(graphOf(LARGE_GRAPH)), undefined);
  });

  it('opens on the current stage: the first stage with nodes, with Start and what Start leads to', () => {
    const d = sample();
    const ids = openingFocus(d, ['discover', 'design'])!.map((f) => f.id);
    const key = (uid: string) => (uid === START_ID ? 'start' : d.nodes.find((n) => n.uid === uid)!.node_key);
    assert.deepEqual(ids.map(key).sort(), ['discover_agent', 'gate_1', 'start']);
    const later = openingFocus(d, ['idea', 'design', 'discover'])!.map((f) => key(f.id));
    assert.deepEqual(later.sort(), ['design_agent', 'discover_agent', 'start']);
  });

  it('opens a large graph on Start and the 30 nodes nearest to it', () => {
    const d = graphOf(LARGE_GRAPH + 1);
    const focus = openingFocus(d)!;
    assert.equal(focus.length, 31);
    assert.equal(focus[0].id, 'start');
    const picked = new Set(focus.slice(1).map((f) => d.nodes.find((n) => n.uid === f.id)!.position_x));
    const nearest = [...d.nodes].sort((a, b) => Math.hypot(a.position_x - d.start.x, a.position_y - d.start.y) - Math.hypot(b.position_x - d.start.x, b.position_y - d.start.y)).slice(0, 30).map((n) => n.position_x);
    assert.deepEqual(picked, new Set(nearest));
  });
});

describe('freeSpot (placing a new node)', () => {
  const at = (x: number, y: number) => ({ position_x: x, position_y: y });
  it('keeps the wanted spot when it is free', () => {
    assert.deepEqual(freeSpot([at(0, 0)], { x: 600, y: 0 }), { x: 600, y: 0 });
  });
  it('never lands on top of a node: the nearest free slot instead', () => {
    const nodes = [at(0, 0), at(0, NODE_H + PLACEMENT_MARGIN)];
    const p = freeSpot(nodes, { x: 10, y: 10 });
    for (const n of nodes) {
      assert.ok(Math.abs(n.position_x - p.x) >= NODE_W + PLACEMENT_MARGIN || Math.abs(n.position_y - p.y) >= NODE_H + PLACEMENT_MARGIN, JSON.stringify(p));
    }
    assert.ok(Math.hypot(p.x - 10, p.y - 10) <= Math.hypot(NODE_W + PLACEMENT_MARGIN, NODE_H + PLACEMENT_MARGIN) * 1.01);
  });
  it('adding ten nodes at the same spot gives ten places that do not overlap', () => {
    let d = sample();
    for (let i = 0; i < 10; i++) d = addNode(d, { type: 'agent', position: freeSpot(d.nodes, { x: 100, y: 40 }) }).draft;
    for (const a of d.nodes) {
      for (const b of d.nodes) {
        if (a === b) continue;
        assert.ok(Math.abs(a.position_x - b.position_x) >= NODE_W || Math.abs(a.position_y - b.position_y) >= NODE_H, `${a.node_key} overlaps ${b.node_key}`);
      }
    }
  });
});

describe('edgeRoute (loop edges go around the nodes)', () => {
  it('a forward edge is an ordinary curve', () => {
    assert.deepEqual(edgeRoute({ x: 0, y: 0 }, { x: 260, y: 0 }, []), { kind: 'forward' });
  });
  it('a loop back along a row runs below every node it passes', () => {
    const nodes = [{ position_x: 0, position_y: 0 }, { position_x: 260, position_y: 0 }, { position_x: 520, position_y: 30 }];
    const r = edgeRoute({ x: 520, y: 30 }, { x: 0, y: 0 }, nodes);
    assert.equal(r.kind, 'loop');
    assert.ok(r.kind === 'loop' && r.loopY > 30 + NODE_H, 'below the lowest node in its span');
  });
  it('an edge into the next stage lane turns in the gap between the lanes', () => {
    const r = edgeRoute({ x: 260, y: 0 }, { x: 0, y: 180 }, []);
    assert.equal(r.kind, 'wrap');
    assert.ok(r.kind === 'wrap' && r.loopY > NODE_H && r.loopY < 180);
  });
  it('toFlowEdges draws loops with the loop edge type and names nodes by key', () => {
    const d = draftFromGraph({
      nodes: [node('write', { position_x: 0 }), node('review', { position_x: 260 })],
      edges: [edge('start', 'write'), edge('write', 'review'), edge('review', 'write', 'contains(reply, "redo")')],
    });
    const edges = toFlowEdges(d, view());
    const loop = edges.find((e) => e.ariaLabel?.includes('review to write'))!;
    assert.equal(loop.type, 'loop');
    assert.ok(loop.className?.includes('edge-loop'));
    assert.ok((loop.data?.loopY ?? 0) > NODE_H);
    assert.equal(edges.find((e) => e.ariaLabel === 'Edge from write to review')!.type, undefined);
  });
});

describe('stageLanes', () => {
  it('one band per stage with nodes, in stage order, around its nodes', () => {
    const lanes = stageLanes(sample().nodes, ['discover', 'design', 'empty']);
    assert.deepEqual(lanes.map((l) => l.stage), ['discover', 'design']);
    const discover = lanes[0];
    assert.ok(discover.x < 100 && discover.x + discover.width > 300 + NODE_W);
    assert.ok(discover.y < 0 && discover.y + discover.height > 40 + NODE_H);
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
    assert.deepEqual(pasted.map((n) => n.node_key), ['discover_agent_copy_1', 'gate_1_copy_1']);
    assert.deepEqual(pasted.map((n) => n.stage_label), ['discover', 'discover']);
    assert.equal(pasted[0].agent_id, 1);
    assert.ok(draft.edges.some((e) => e.source === uids[0] && e.target === uids[1]));
    for (const p of pasted) {
      for (const n of d.nodes) assert.ok(Math.abs(n.position_x - p.position_x) >= NODE_W || Math.abs(n.position_y - p.position_y) >= NODE_H, `${p.node_key} lands on ${n.node_key}`);
    }
    // pasting again gives other keys
    const again = pasteClip(draft, clip);
    assert.deepEqual(again.draft.nodes.slice(-2).map((n) => n.node_key), ['discover_agent_copy_2', 'gate_1_copy_2']);
    assert.equal(copySelection(d, new Set()), null);
  });
});
