// Every edit to a draft, as a pure function returning a new draft (or the same one when nothing changed):
// add a node with a unique key, connect, delete with incident edges, edit properties, move, lay out.
import type { GraphNode, NodeType } from '../../../shared/api-types';
import {
  NODE_KEY_RE,
  START_ID,
  START_KEY,
  type DraftEdge,
  type DraftNode,
  type GraphDraft,
  type XY,
} from './draft-model';

/** `agent` → `agent_1`, `agent_2`, … avoiding every existing key (and `start`). */
export function uniqueNodeKey(base: string, nodes: readonly { node_key: string }[]): string {
  const clean =
    base
      .replace(/[^A-Za-z0-9_-]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 56) || 'node';
  const taken = new Set(nodes.map((n) => n.node_key));
  taken.add(START_KEY);
  for (let i = 1; ; i++) {
    const key = `${clean}_${i}`;
    if (!taken.has(key)) return key;
  }
}

export interface NewNode {
  type: NodeType;
  position: XY;
  stage_label?: string | null;
  agent_id?: number | null;
  node_key?: string;
  config?: Record<string, unknown>;
}

/** The next unused id with `prefix` (ids from draftFromFlow may be arbitrary strings). */
function nextId(draft: GraphDraft, prefix: 'n' | 'e'): { id: string; seq: number } {
  const taken = prefix === 'n' ? new Set(draft.nodes.map((n) => n.uid)) : new Set(draft.edges.map((e) => e.id));
  let seq = draft.seq + 1;
  while (taken.has(`${prefix}${seq}`) || `${prefix}${seq}` === START_ID) seq++;
  return { id: `${prefix}${seq}`, seq };
}

export function addNode(draft: GraphDraft, spec: NewNode): { draft: GraphDraft; uid: string } {
  const { id: uid, seq } = nextId(draft, 'n');
  const node: DraftNode = {
    uid,
    node_key:
      spec.node_key && NODE_KEY_RE.test(spec.node_key) && !draft.nodes.some((n) => n.node_key === spec.node_key)
        ? spec.node_key
        : uniqueNodeKey(spec.node_key ?? spec.type, draft.nodes),
    type: spec.type,
    agent_id: spec.type === 'agent' ? (spec.agent_id ?? null) : null,
    stage_label: spec.stage_label ?? null,
    config: spec.config ? { ...spec.config } : {},
    position_x: spec.position.x,
    position_y: spec.position.y,
  };
  return { draft: { ...draft, nodes: [...draft.nodes, node], seq }, uid };
}

export type ConnectResult =
  { draft: GraphDraft; edgeId: string; error: null } | { draft: GraphDraft; edgeId: null; error: string };

export function canConnect(
  draft: GraphDraft,
  source: string | null | undefined,
  target: string | null | undefined,
): string | null {
  if (!source || !target) return 'Pick two nodes.';
  if (target === START_ID) return 'Nothing can lead into start.';
  if (source === target) return 'A node cannot connect to itself.';
  const has = (id: string) => id === START_ID || draft.nodes.some((n) => n.uid === id);
  if (!has(source) || !has(target)) return 'Unknown node.';
  if (draft.edges.some((e) => e.source === source && e.target === target)) return 'These nodes are already connected.';
  return null;
}

export function connect(
  draft: GraphDraft,
  source: string,
  target: string,
  condition: string | null = null,
): ConnectResult {
  const error = canConnect(draft, source, target);
  if (error) return { draft, edgeId: null, error };
  const { id, seq } = nextId(draft, 'e');
  const edge: DraftEdge = { id, source, target, condition };
  return { draft: { ...draft, edges: [...draft.edges, edge], seq }, edgeId: edge.id, error: null };
}

/** Removes the given nodes (never start) with every edge touching them, and the given edges. */
export function deleteElements(
  draft: GraphDraft,
  sel: { nodeIds?: readonly string[]; edgeIds?: readonly string[] },
): GraphDraft {
  const nodeIds = new Set((sel.nodeIds ?? []).filter((id) => id !== START_ID));
  const edgeIds = new Set(sel.edgeIds ?? []);
  if (nodeIds.size === 0 && edgeIds.size === 0) return draft;
  const nodes = nodeIds.size ? draft.nodes.filter((n) => !nodeIds.has(n.uid)) : draft.nodes;
  const edges = draft.edges.filter((e) => !edgeIds.has(e.id) && !nodeIds.has(e.source) && !nodeIds.has(e.target));
  if (nodes.length === draft.nodes.length && edges.length === draft.edges.length) return draft;
  return { ...draft, nodes, edges };
}

export type NodePatch = Partial<Omit<GraphNode, 'position_x' | 'position_y'>>;

export function updateNode(draft: GraphDraft, uid: string, patch: NodePatch): GraphDraft {
  let changed = false;
  const nodes = draft.nodes.map((n) => {
    if (n.uid !== uid) return n;
    const next: DraftNode = { ...n, ...patch };
    if (next.type !== 'agent') next.agent_id = null;
    changed = true;
    return next;
  });
  return changed ? { ...draft, nodes } : draft;
}

/** Sets or clears `config.artifact` (an empty string removes the key). */
export function setArtifact(draft: GraphDraft, uid: string, artifact: string): GraphDraft {
  const node = draft.nodes.find((n) => n.uid === uid);
  if (!node) return draft;
  const config = { ...node.config };
  if (artifact === '') delete config.artifact;
  else config.artifact = artifact;
  return updateNode(draft, uid, { config });
}

export function updateEdge(draft: GraphDraft, id: string, patch: { condition: string | null }): GraphDraft {
  let changed = false;
  const edges = draft.edges.map((e) => {
    if (e.id !== id) return e;
    changed = true;
    return { ...e, ...patch };
  });
  return changed ? { ...draft, edges } : draft;
}

/** Moves an edge one place earlier/later among the edges leaving the same node (order matters for branches). */
export function moveEdge(draft: GraphDraft, id: string, delta: -1 | 1): GraphDraft {
  const i = draft.edges.findIndex((e) => e.id === id);
  if (i < 0) return draft;
  const source = draft.edges[i].source;
  let j = i + delta;
  while (j >= 0 && j < draft.edges.length && draft.edges[j].source !== source) j += delta;
  if (j < 0 || j >= draft.edges.length) return draft;
  const edges = [...draft.edges];
  [edges[i], edges[j]] = [edges[j], edges[i]];
  return { ...draft, edges };
}

/** Applies positions (by uid, or START_ID for the virtual start). Unchanged nodes keep their identity. */
export function moveNodes(draft: GraphDraft, positions: ReadonlyMap<string, XY>): GraphDraft {
  if (positions.size === 0) return draft;
  let changed = false;
  const nodes = draft.nodes.map((n) => {
    const p = positions.get(n.uid);
    if (!p || (p.x === n.position_x && p.y === n.position_y)) return n;
    changed = true;
    return { ...n, position_x: p.x, position_y: p.y };
  });
  const sp = positions.get(START_ID);
  const start = sp && (sp.x !== draft.start.x || sp.y !== draft.start.y) ? { x: sp.x, y: sp.y } : draft.start;
  if (!changed && start === draft.start) return draft;
  return { ...draft, nodes: changed ? nodes : draft.nodes, start };
}

/** Takes the positions of an auto-laid-out copy of the graph (matched by index, then node_key). */
export function applyLayout(draft: GraphDraft, laidOut: { nodes: readonly GraphNode[] }): GraphDraft {
  const positions = new Map<string, XY>();
  draft.nodes.forEach((n, i) => {
    const byIndex = laidOut.nodes[i];
    const src =
      byIndex && byIndex.node_key === n.node_key ? byIndex : laidOut.nodes.find((m) => m.node_key === n.node_key);
    if (src) positions.set(n.uid, { x: src.position_x, y: src.position_y });
  });
  const moved = moveNodes(draft, positions);
  const laid = laidOut.nodes;
  const minX = laid.length ? Math.min(...laid.map((n) => n.position_x)) : 0;
  const firstTargets = new Set(draft.edges.filter((e) => e.source === START_ID).map((e) => e.target));
  const ys = moved.nodes.filter((n) => firstTargets.has(n.uid)).map((n) => n.position_y);
  const y = ys.length ? ys.reduce((a, b) => a + b, 0) / ys.length : 0;
  return { ...moved, start: { x: minX - 240, y } };
}
