// The editor's draft of a graph: nodes with a client-only `uid` (so renaming a node_key never breaks
// edges or selection), edges between uids, and the conversion from and to the saved {nodes, edges}.
import type { GraphEdge, GraphNode, NodeType } from '../../../shared/api-types';

/** The virtual origin's node_key (docs/API.md) and its React Flow id. */
export const START_KEY = 'start';
export const START_ID = 'start';

export const NODE_KEY_RE = /^[A-Za-z0-9_-]{1,64}$/;
export const NODE_TYPE_LIST: readonly NodeType[] = ['agent', 'gate', 'branch'];

export interface DraftNode extends GraphNode {
  uid: string;
}

export interface DraftEdge {
  id: string;
  /** A node uid, or START_ID. */
  source: string;
  target: string;
  condition: string | null;
}

export interface GraphDraft {
  nodes: DraftNode[];
  edges: DraftEdge[];
  start: { x: number; y: number };
  /** Counter for new uids / edge ids. */
  seq: number;
}

export interface XY {
  x: number;
  y: number;
}

function startPositionFor(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): XY {
  if (nodes.length === 0) return { x: 0, y: 0 };
  const firstTargets = new Set(edges.filter((e) => e.from_node === START_KEY).map((e) => e.to_node));
  const targets = nodes.filter((n) => firstTargets.has(n.node_key));
  const minX = Math.min(...nodes.map((n) => n.position_x));
  const ys = (targets.length ? targets : nodes).map((n) => n.position_y);
  const y = targets.length ? ys.reduce((a, b) => a + b, 0) / ys.length : Math.min(...ys);
  return { x: minX - 240, y };
}

export function emptyDraft(): GraphDraft {
  return { nodes: [], edges: [], start: { x: 0, y: 0 }, seq: 0 };
}

/** A saved graph → a draft. Edges whose ends are unknown are dropped (the API never returns them). */
export function draftFromGraph(graph: { nodes: readonly GraphNode[]; edges: readonly GraphEdge[] }): GraphDraft {
  let seq = 0;
  const uidByKey = new Map<string, string>();
  const nodes: DraftNode[] = graph.nodes.map((n) => {
    const uid = `n${++seq}`;
    if (!uidByKey.has(n.node_key)) uidByKey.set(n.node_key, uid);
    return {
      uid,
      node_key: n.node_key,
      type: n.type,
      agent_id: n.agent_id ?? null,
      stage_label: n.stage_label ?? null,
      config: n.config && typeof n.config === 'object' ? { ...n.config } : {},
      position_x: Number.isFinite(n.position_x) ? n.position_x : 0,
      position_y: Number.isFinite(n.position_y) ? n.position_y : 0,
    };
  });
  const edges: DraftEdge[] = [];
  for (const e of graph.edges) {
    const source = e.from_node === START_KEY ? START_ID : uidByKey.get(e.from_node);
    const target = uidByKey.get(e.to_node);
    if (!source || !target) continue;
    edges.push({ id: `e${++seq}`, source, target, condition: e.condition ?? null });
  }
  return { nodes, edges, start: startPositionFor(graph.nodes, graph.edges), seq };
}

/** A draft → the `{nodes, edges}` the API stores (order preserved, so `nodes[i]` in errors is `draft.nodes[i]`). */
export function draftToGraph(draft: GraphDraft): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const keyByUid = new Map(draft.nodes.map((n) => [n.uid, n.node_key]));
  const nodes = draft.nodes.map(({ uid: _uid, ...n }) => ({
    ...n,
    position_x: Math.round(n.position_x * 100) / 100,
    position_y: Math.round(n.position_y * 100) / 100,
  }));
  const edges = draft.edges.map((e) => ({
    from_node: e.source === START_ID ? START_KEY : (keyByUid.get(e.source) ?? e.source),
    to_node: keyByUid.get(e.target) ?? e.target,
    condition: e.condition === null || e.condition.trim() === '' ? null : e.condition,
  }));
  return { nodes, edges };
}
