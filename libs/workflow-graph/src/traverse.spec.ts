import assert from 'node:assert/strict';
import type { ConditionContext } from './condition';
import { breadthFirstFromStart, entryNode, indexGraph, nextAfter, nextEdge, outgoingEdges } from './traverse';
import type { Graph, GraphEdge, GraphNode, NodeType } from './types';

function node(
  node_key: string,
  type: NodeType,
  stage_label: string | null = null,
  agent_id: number | null = null,
): GraphNode {
  return {
    node_key,
    type,
    agent_id: type === 'agent' ? (agent_id ?? 1) : null,
    stage_label,
    config: {},
    position_x: 0,
    position_y: 0,
  };
}

function edge(from_node: string, to_node: string, condition: string | null = null): GraphEdge {
  return { from_node, to_node, condition };
}

const ctx = (reply: string, files: string[] = []): ConditionContext => ({ reply, stage: 'test', files });

describe('outgoingEdges and indexGraph', () => {
  const graph: Graph = {
    nodes: [node('a', 'agent', 'x'), node('b', 'agent', 'x'), node('c', 'gate')],
    edges: [edge('a', 'c'), edge('start', 'a'), edge('a', 'b', 'reply'), edge('b', 'c'), edge('a', 'b')],
  };

  test('returns edges in edge order, including those from start', () => {
    assert.deepEqual(outgoingEdges(graph, 'a'), [edge('a', 'c'), edge('a', 'b', 'reply'), edge('a', 'b')]);
    assert.deepEqual(outgoingEdges(graph, 'start'), [edge('start', 'a')]);
    assert.deepEqual(outgoingEdges(graph, 'c'), []);
    assert.deepEqual(outgoingEdges(graph, 'nope'), []);
  });

  test('an index is built once and can be passed anywhere a graph is', () => {
    const index = indexGraph(graph);
    assert.equal(index.nodes.get('b'), graph.nodes[1]);
    assert.equal(outgoingEdges(index, 'a'), index.outgoing.get('a'));
    assert.equal(entryNode(index, 'x'), graph.nodes[0]);
    assert.deepEqual(breadthFirstFromStart(index), ['a', 'c', 'b']);
  });
});

describe('entryNode', () => {
  test('is the first agent of the stage met breadth-first from start, edges in order', () => {
    // Node order and depth-first order would both pick deep_design; breadth-first meets near_design first.
    const graph: Graph = {
      nodes: [
        node('deep_design', 'agent', 'design'),
        node('discover', 'agent', 'discover'),
        node('gate_1', 'gate'),
        node('review', 'agent', 'discover'),
        node('near_design', 'agent', 'design'),
        node('other_design', 'agent', 'design'),
      ],
      edges: [
        edge('start', 'discover'),
        edge('start', 'gate_1'),
        edge('discover', 'review'),
        edge('review', 'deep_design'),
        edge('gate_1', 'near_design'),
        edge('gate_1', 'other_design'),
      ],
    };
    assert.equal(entryNode(graph, 'design')?.node_key, 'near_design');
    assert.equal(entryNode(graph, 'discover')?.node_key, 'discover');
    assert.deepEqual(breadthFirstFromStart(graph), [
      'discover',
      'gate_1',
      'review',
      'near_design',
      'other_design',
      'deep_design',
    ]);
  });

  test('edge order decides between nodes at the same depth', () => {
    const graph: Graph = {
      nodes: [node('first', 'agent', 's'), node('second', 'agent', 's')],
      edges: [edge('start', 'second'), edge('start', 'first')],
    };
    assert.equal(entryNode(graph, 's')?.node_key, 'second');
  });

  test('skips gates and branches labelled with the stage', () => {
    const graph: Graph = {
      nodes: [node('g', 'gate', 's'), node('b', 'branch', 's'), node('a', 'agent', 's')],
      edges: [edge('start', 'g'), edge('g', 'b'), edge('b', 'a')],
    };
    assert.equal(entryNode(graph, 's')?.node_key, 'a');
  });

  test('falls back to the first agent of the stage in node order when none is reachable', () => {
    const graph: Graph = {
      nodes: [node('a', 'agent', 'one'), node('lonely_1', 'agent', 'two'), node('lonely_2', 'agent', 'two')],
      edges: [edge('start', 'a')],
    };
    assert.equal(entryNode(graph, 'two')?.node_key, 'lonely_1');
    assert.equal(entryNode(graph, 'three'), null);
    assert.equal(entryNode({ nodes: [], edges: [] }, 'one'), null);
  });

  test('terminates on cycles', () => {
    const graph: Graph = {
      nodes: [node('a', 'agent', 'x'), node('b', 'branch')],
      edges: [edge('start', 'a'), edge('a', 'b'), edge('b', 'a'), edge('b', 'b')],
    };
    assert.equal(entryNode(graph, 'y'), null);
    assert.deepEqual(breadthFirstFromStart(graph), ['a', 'b']);
  });
});

describe('nextAfter', () => {
  const graph: Graph = {
    nodes: [
      node('check', 'branch', 'test'),
      node('fallback', 'agent', 'test'),
      node('fix', 'agent', 'test'),
      node('ship', 'agent', 'test'),
      node('work', 'agent', 'test'),
      node('done', 'gate'),
    ],
    edges: [
      edge('check', 'fallback'),
      edge('check', 'fix', 'contains(reply, "FAIL")'),
      edge('check', 'ship', 'contains(reply, "PASS") or exists("release.md")'),
      edge('work', 'done', 'contains(reply, "DONE")'),
      edge('work', 'check'),
      edge('work', 'fix', 'true'),
      edge('done', 'ship'),
    ],
  };

  test('a branch takes its first conditional edge that holds', () => {
    assert.equal(nextAfter(graph, 'check', ctx('FAIL'))?.node_key, 'fix');
    assert.equal(nextAfter(graph, 'check', ctx('PASS'))?.node_key, 'ship');
    assert.equal(nextAfter(graph, 'check', ctx('', ['release.md']))?.node_key, 'ship');
    assert.equal(nextAfter(graph, 'check', ctx('FAIL and PASS'))?.node_key, 'fix');
  });

  test('a branch takes its default edge only when no condition holds, wherever the default sits', () => {
    assert.equal(nextAfter(graph, 'check', ctx('maybe'))?.node_key, 'fallback');
    assert.deepEqual(nextEdge(graph, 'check', ctx('maybe')), edge('check', 'fallback'));
  });

  test('a branch with no default and no holding condition goes nowhere', () => {
    const noDefault: Graph = { nodes: graph.nodes, edges: graph.edges.filter((e) => e.condition !== null) };
    assert.equal(nextAfter(noDefault, 'check', ctx('maybe')), null);
  });

  test('other nodes take the first edge in order that has no condition or whose condition holds', () => {
    assert.equal(nextAfter(graph, 'work', ctx('DONE'))?.node_key, 'done');
    assert.equal(nextAfter(graph, 'work', ctx('not yet'))?.node_key, 'check');
    assert.equal(nextAfter(graph, 'done', ctx(''))?.node_key, 'ship');
    assert.equal(nextAfter(graph, 'ship', ctx('')), null);
    assert.equal(nextAfter(graph, 'unknown', ctx('')), null);
  });

  test('start is followed like any non-branch node', () => {
    const g: Graph = { nodes: [node('a', 'agent', 'x')], edges: [edge('start', 'a')] };
    assert.equal(nextAfter(g, 'start', ctx(''))?.node_key, 'a');
  });

  test('a condition that does not parse never holds (and never throws)', () => {
    const g: Graph = {
      nodes: [node('b', 'branch'), node('x', 'agent', 's'), node('y', 'agent', 's')],
      edges: [edge('b', 'x', 'reply =='), edge('b', 'y')],
    };
    const index = indexGraph(g);
    assert.equal(nextAfter(index, 'b', ctx('anything'))?.node_key, 'y');
    assert.equal(index.conditions.get('reply =='), null);
  });

  test('parsed conditions are cached on the index', () => {
    const index = indexGraph(graph);
    nextAfter(index, 'check', ctx('PASS'));
    assert.equal(index.conditions.size, 2);
    assert.equal(index.conditions.get('contains(reply, "FAIL")')?.kind, 'call');
  });
});
