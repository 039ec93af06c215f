import assert from 'node:assert/strict';
import { autoLayout, LAYOUT_COLUMN_WIDTH as W, LAYOUT_LANE_GAP as G, LAYOUT_ROW_HEIGHT as H } from './layout';

/** The height of a one-row stage lane. */
const L = H + G;
import type { Graph, GraphEdge, GraphNode, NodeType } from './types';

function node(node_key: string, type: NodeType, stage_label: string | null = null): GraphNode {
  return {
    node_key,
    type,
    agent_id: type === 'agent' ? 1 : null,
    stage_label,
    config: {},
    position_x: 5,
    position_y: 7,
  };
}

function edge(from_node: string, to_node: string, condition: string | null = null): GraphEdge {
  return { from_node, to_node, condition };
}

function positions(graph: Graph): Record<string, [number, number]> {
  return Object.fromEntries(graph.nodes.map((n) => [n.node_key, [n.position_x, n.position_y]]));
}

describe('autoLayout', () => {
  test('a staged pipeline is a stack of stage lanes, each read left to right (not one long line)', () => {
    const graph: Graph = {
      nodes: [
        node('develop', 'agent', 'develop'),
        node('gate_2', 'gate'),
        node('design', 'agent', 'design'),
        node('gate_1', 'gate'),
        node('discover', 'agent', 'discover'),
      ],
      edges: [
        edge('start', 'discover'),
        edge('discover', 'gate_1'),
        edge('gate_1', 'design'),
        edge('design', 'gate_2'),
        edge('gate_2', 'develop'),
      ],
    };
    assert.deepEqual(positions(autoLayout(graph, ['discover', 'design', 'develop'])), {
      discover: [0, 0],
      gate_1: [W, 0],
      design: [0, L],
      gate_2: [W, L],
      develop: [0, 2 * L],
    });
  });

  test('nodes sharing a column are stacked in breadth-first order', () => {
    const graph: Graph = {
      nodes: [
        node('review', 'agent', 'a'),
        node('check', 'branch'),
        node('fix', 'agent', 'a'),
        node('write', 'agent', 'a'),
      ],
      edges: [edge('start', 'write'), edge('write', 'check'), edge('check', 'fix', 'reply'), edge('check', 'review')],
    };
    assert.deepEqual(positions(autoLayout(graph, ['a'])), {
      write: [0, 0],
      check: [W, 0],
      fix: [2 * W, 0],
      review: [2 * W, H],
    });
  });

  test('every stage keeps a lane, even an empty one, in stage order', () => {
    const graph: Graph = {
      nodes: [node('late', 'agent', 'three'), node('early', 'agent', 'one'), node('early_2', 'agent', 'one')],
      edges: [edge('start', 'early'), edge('start', 'early_2'), edge('start', 'late')],
    };
    assert.deepEqual(positions(autoLayout(graph, ['one', 'two', 'three'])), {
      early: [0, 0],
      early_2: [0, H],
      late: [0, 3 * H + 2 * G],
    });
  });

  test('an unstaged node right after start sits in the first lane', () => {
    const graph: Graph = {
      nodes: [node('route', 'branch'), node('a', 'agent', 'one'), node('b', 'agent', 'two')],
      edges: [edge('start', 'route'), edge('route', 'a', 'reply'), edge('route', 'b')],
    };
    assert.deepEqual(positions(autoLayout(graph, ['one', 'two'])), {
      route: [0, 0],
      a: [W, 0],
      b: [0, L],
    });
  });

  test('unreachable nodes keep their stage lane; unstaged ones go to an extra lane at the end', () => {
    const graph: Graph = {
      nodes: [
        node('a', 'agent', 'one'),
        node('lost', 'agent', 'one'),
        node('stray', 'gate'),
        node('after_stray', 'branch'),
      ],
      edges: [edge('start', 'a'), edge('stray', 'after_stray')],
    };
    assert.deepEqual(positions(autoLayout(graph, ['one', 'two'])), {
      a: [0, 0],
      lost: [0, H],
      stray: [0, 3 * H + 2 * G],
      after_stray: [W, 3 * H + 2 * G],
    });
  });

  test('is deterministic, keeps order and edges, and does not mutate its input', () => {
    const graph: Graph = {
      nodes: [node('b', 'agent', 's'), node('a', 'agent', 's'), node('g', 'gate')],
      edges: [edge('start', 'a'), edge('a', 'g'), edge('g', 'b'), edge('b', 'a', 'reply')],
    };
    const snapshot = structuredClone(graph);
    const first = autoLayout(graph, ['s']);
    assert.deepEqual(autoLayout(graph, ['s']), first);
    // structuredClone builds its copy in Node's realm, not the test's: compare by value, not prototype
    expect(graph).toEqual(snapshot);
    assert.deepEqual(
      first.nodes.map((n) => n.node_key),
      ['b', 'a', 'g'],
    );
    assert.deepEqual(first.edges, graph.edges);
    assert.deepEqual({ ...first.nodes[0], position_x: 5, position_y: 7 }, graph.nodes[0]);
  });

  test('handles an empty graph and no stages', () => {
    assert.deepEqual(autoLayout({ nodes: [], edges: [] }, []), { nodes: [], edges: [] });
    const graph: Graph = {
      nodes: [node('a', 'agent', 'x'), node('b', 'gate')],
      edges: [edge('start', 'a'), edge('a', 'b')],
    };
    assert.deepEqual(positions(autoLayout(graph, [])), { a: [0, 0], b: [W, 0] });
  });
});
