import assert from 'node:assert/strict';
import type { GraphEdge, GraphNode } from '../../shared/api-types';
import {
  START_ID,
  addNode,
  connect,
  createFlowCache,
  draftFromFlow,
  draftFromGraph,
  draftToGraph,
  mapProblems,
  mergeProblemMaps,
  moveNodes,
  openingFocus,
  LARGE_GRAPH,
  edgeRoute,
  freeSpot,
  stageLanes,
  NODE_H,
  NODE_W,
  PLACEMENT_MARGIN,
  stageColor,
  toFlowEdges,
  toFlowNodes,
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

const view = (over: Partial<FlowView> = {}): FlowView => ({
  stages: ['discover', 'design'],
  agentName: (id) => (id === null ? null : `Agent ${id}`),
  selected: new Set(),
  problems: null,
  readOnly: false,
  ...over,
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
      [
        { field: 'nodes[0]', node_key: 'gate_1', message: 'not reachable' },
        { field: 'stages', message: 'stage "test" has no agent node' },
      ],
    );
    // in a person's words, not field names
    assert.deepEqual(m.nodes.get(d.nodes[2].uid)!.errors, [
      'Its agent no longer exists or is not visible to you: choose another.',
    ]);
    assert.deepEqual(m.edges.get(d.edges[1].id)!.errors, ['Condition: unexpected token']);
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
      [
        [START_ID, d.nodes[0].uid],
        [d.nodes[0].uid, d.nodes[1].uid],
        [d.nodes[1].uid, d.nodes[2].uid],
      ],
    );
  });

  it('reuses React Flow objects for unchanged elements (500 nodes stay cheap)', () => {
    let d: GraphDraft = draftFromGraph({ nodes: [], edges: [] });
    for (let i = 0; i < 500; i++)
      d = addNode(d, { type: 'agent', position: { x: i * 10, y: 0 }, stage_label: 'discover' }).draft;
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
    const problems = mapProblems(d, [
      { field: 'nodes[0].stage_label', message: 'bad' },
      { field: 'edges[0]', message: 'x' },
    ]);
    const nodes = toFlowNodes(d, view({ problems, selected: new Set([d.nodes[0].uid]), readOnly: true }));
    const n = nodes[1];
    assert.equal(n.selected, true);
    assert.equal(n.draggable, false);
    if (n.type === 'step') assert.deepEqual(n.data.errors, ['Stage: bad']);
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
    const server = mapProblems(d, [
      { field: 'nodes[0].agent_id', message: 'x' },
      { field: 'nodes[1].stage_label', message: 'y' },
    ]);
    const m = mergeProblemMaps(client, server)!;
    assert.deepEqual(m.nodes.get(d.nodes[0].uid)!.errors, ['Agent: x']);
    assert.deepEqual(m.nodes.get(d.nodes[1].uid)!.errors, ['Stage: y']);
    assert.equal(m.errorCount, 2);
    assert.equal(m.warningCount, 1);
    assert.equal(mergeProblemMaps(null, server), server);
  });
});

describe('openingFocus', () => {
  const graphOf = (n: number) =>
    draftFromGraph({
      nodes: Array.from({ length: n }, (_, i) => ({
        node_key: `n${i}`,
        type: 'agent' as const,
        agent_id: 1,
        stage_label: null,
        config: {},
        position_x: 1000 - i * 10,
        position_y: 0,
      })),
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
    const nearest = [...d.nodes]
      .sort(
        (a, b) =>
          Math.hypot(a.position_x - d.start.x, a.position_y - d.start.y) -
          Math.hypot(b.position_x - d.start.x, b.position_y - d.start.y),
      )
      .slice(0, 30)
      .map((n) => n.position_x);
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
      assert.ok(
        Math.abs(n.position_x - p.x) >= NODE_W + PLACEMENT_MARGIN ||
          Math.abs(n.position_y - p.y) >= NODE_H + PLACEMENT_MARGIN,
        JSON.stringify(p),
      );
    }
    assert.ok(
      Math.hypot(p.x - 10, p.y - 10) <= Math.hypot(NODE_W + PLACEMENT_MARGIN, NODE_H + PLACEMENT_MARGIN) * 1.01,
    );
  });
  it('adding ten nodes at the same spot gives ten places that do not overlap', () => {
    let d = sample();
    for (let i = 0; i < 10; i++)
      d = addNode(d, { type: 'agent', position: freeSpot(d.nodes, { x: 100, y: 40 }) }).draft;
    for (const a of d.nodes) {
      for (const b of d.nodes) {
        if (a === b) continue;
        assert.ok(
          Math.abs(a.position_x - b.position_x) >= NODE_W || Math.abs(a.position_y - b.position_y) >= NODE_H,
          `${a.node_key} overlaps ${b.node_key}`,
        );
      }
    }
  });
});

describe('edgeRoute (loop edges go around the nodes)', () => {
  it('a forward edge is an ordinary curve', () => {
    assert.deepEqual(edgeRoute({ x: 0, y: 0 }, { x: 260, y: 0 }, []), { kind: 'forward' });
  });
  it('a loop back along a row runs below every node it passes', () => {
    const nodes = [
      { position_x: 0, position_y: 0 },
      { position_x: 260, position_y: 0 },
      { position_x: 520, position_y: 30 },
    ];
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
    assert.deepEqual(
      lanes.map((l) => l.stage),
      ['discover', 'design'],
    );
    const discover = lanes[0];
    assert.ok(discover.x < 100 && discover.x + discover.width > 300 + NODE_W);
    assert.ok(discover.y < 0 && discover.y + discover.height > 40 + NODE_H);
  });
});
