// Walking a validated graph (docs/API.md): outgoing edges in order, the entry node of a stage,
// and the next node after a visited one. The runtime builds one GraphIndex per turn and reuses it.

import { evaluateCondition, parseCondition, type ConditionAst, type ConditionContext } from './condition';
import { START, type Graph, type GraphEdge, type GraphNode } from './types';

export interface GraphIndex {
  graph: Graph;
  /** Nodes by node_key (the first one wins if a key is duplicated). */
  nodes: ReadonlyMap<string, GraphNode>;
  /** Outgoing edges by from_node (including START), in edge order. */
  outgoing: ReadonlyMap<string, readonly GraphEdge[]>;
  /** Parsed conditions by source; null for a condition that does not parse. Filled on first use. */
  conditions: Map<string, ConditionAst | null>;
}

const NO_EDGES: readonly GraphEdge[] = [];

export function indexGraph(graph: Graph): GraphIndex {
  const nodes = new Map<string, GraphNode>();
  for (const node of graph.nodes) {
    if (!nodes.has(node.node_key)) nodes.set(node.node_key, node);
  }
  const outgoing = new Map<string, GraphEdge[]>();
  for (const edge of graph.edges) {
    const list = outgoing.get(edge.from_node);
    if (list === undefined) outgoing.set(edge.from_node, [edge]);
    else list.push(edge);
  }
  return { graph, nodes, outgoing, conditions: new Map() };
}

function isIndex(value: Graph | GraphIndex): value is GraphIndex {
  return 'outgoing' in value && value.outgoing instanceof Map;
}

function asIndex(graph: Graph | GraphIndex): GraphIndex {
  return isIndex(graph) ? graph : indexGraph(graph);
}

/** The edges leaving `nodeKey` (or START), in edge order. Pass a GraphIndex to avoid re-indexing. */
export function outgoingEdges(graph: Graph | GraphIndex, nodeKey: string): readonly GraphEdge[] {
  return asIndex(graph).outgoing.get(nodeKey) ?? NO_EDGES;
}

/** Node keys in breadth-first order from START, following edges in order (START itself excluded). */
export function breadthFirstFromStart(graph: Graph | GraphIndex): string[] {
  const index = asIndex(graph);
  const seen = new Set<string>([START]);
  const order: string[] = [];
  const queue: string[] = [START];
  for (let head = 0; head < queue.length; head++) {
    for (const edge of index.outgoing.get(queue[head] as string) ?? NO_EDGES) {
      if (seen.has(edge.to_node) || !index.nodes.has(edge.to_node)) continue;
      seen.add(edge.to_node);
      order.push(edge.to_node);
      queue.push(edge.to_node);
    }
  }
  return order;
}

/**
 * The node a turn starts at in `stage`: the first agent node of that stage met walking breadth-first
 * from START (edges in order); when none is reachable, the first agent node of the stage in node order.
 */
export function entryNode(graph: Graph | GraphIndex, stage: string): GraphNode | null {
  const index = asIndex(graph);
  const isEntry = (node: GraphNode | undefined): node is GraphNode =>
    node !== undefined && node.type === 'agent' && node.stage_label === stage;
  for (const key of breadthFirstFromStart(index)) {
    const node = index.nodes.get(key);
    if (isEntry(node)) return node;
  }
  return index.graph.nodes.find(isEntry) ?? null;
}

/** Whether an edge's condition holds; a condition that does not parse never holds. */
export function edgeConditionHolds(graph: Graph | GraphIndex, edge: GraphEdge, ctx: ConditionContext): boolean {
  if (edge.condition === null || edge.condition.trim() === '') return true;
  const index = asIndex(graph);
  let ast = index.conditions.get(edge.condition);
  if (ast === undefined) {
    try {
      ast = parseCondition(edge.condition);
    } catch {
      ast = null;
    }
    index.conditions.set(edge.condition, ast);
  }
  return ast !== null && evaluateCondition(ast, ctx);
}

function isDefault(edge: GraphEdge): boolean {
  return edge.condition === null || edge.condition.trim() === '';
}

/**
 * The edge a walk follows out of `nodeKey`. A branch takes its first conditional edge that holds,
 * else its first condition-less (default) edge, wherever that default sits in the order. Other nodes
 * (and START) take their first edge, in order, that has no condition or whose condition holds.
 */
export function nextEdge(graph: Graph | GraphIndex, nodeKey: string, ctx: ConditionContext): GraphEdge | null {
  const index = asIndex(graph);
  const edges = (index.outgoing.get(nodeKey) ?? NO_EDGES).filter((e) => index.nodes.has(e.to_node));
  if (index.nodes.get(nodeKey)?.type === 'branch') {
    const taken = edges.find((e) => !isDefault(e) && edgeConditionHolds(index, e, ctx));
    return taken ?? edges.find(isDefault) ?? null;
  }
  return edges.find((e) => edgeConditionHolds(index, e, ctx)) ?? null;
}

/** The node a walk moves to after `nodeKey`, or null when no edge applies. */
export function nextAfter(graph: Graph | GraphIndex, nodeKey: string, ctx: ConditionContext): GraphNode | null {
  const index = asIndex(graph);
  const edge = nextEdge(index, nodeKey, ctx);
  return edge === null ? null : (index.nodes.get(edge.to_node) ?? null);
}
