// The workflow editor's draft and every edit to it, as pure functions (no React, no DOM): load a saved
// graph, add a node with a unique key, connect, delete with incident edges, edit properties, move,
// undo/redo history, map validation problems onto nodes/edges, and convert to/from React Flow.
// Nodes carry a client-only `uid` so renaming a node_key never breaks edges or selection; edges refer
// to uids and are turned back into node_keys only for the saved payload.
import type { Edge, Node } from '@xyflow/react';
import type { GraphEdge, GraphNode, GraphWarning, FieldError, NodeType } from '../../shared/api-types';

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

// ---------------------------------------------------------------- load / save

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

// ---------------------------------------------------------------- edits

/** `agent` → `agent_1`, `agent_2`, … avoiding every existing key (and `start`). */
export function uniqueNodeKey(base: string, nodes: readonly { node_key: string }[]): string {
  const clean = base.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 56) || 'node';
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

export type ConnectResult = { draft: GraphDraft; edgeId: string; error: null } | { draft: GraphDraft; edgeId: null; error: string };

export function canConnect(draft: GraphDraft, source: string | null | undefined, target: string | null | undefined): string | null {
  if (!source || !target) return 'Pick two nodes.';
  if (target === START_ID) return 'Nothing can lead into start.';
  if (source === target) return 'A node cannot connect to itself.';
  const has = (id: string) => id === START_ID || draft.nodes.some((n) => n.uid === id);
  if (!has(source) || !has(target)) return 'Unknown node.';
  if (draft.edges.some((e) => e.source === source && e.target === target)) return 'These nodes are already connected.';
  return null;
}

export function connect(draft: GraphDraft, source: string, target: string, condition: string | null = null): ConnectResult {
  const error = canConnect(draft, source, target);
  if (error) return { draft, edgeId: null, error };
  const { id, seq } = nextId(draft, 'e');
  const edge: DraftEdge = { id, source, target, condition };
  return { draft: { ...draft, edges: [...draft.edges, edge], seq }, edgeId: edge.id, error: null };
}

/** Removes the given nodes (never start) with every edge touching them, and the given edges. */
export function deleteElements(draft: GraphDraft, sel: { nodeIds?: readonly string[]; edgeIds?: readonly string[] }): GraphDraft {
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
  const source = draft.edges[i]!.source;
  let j = i + delta;
  while (j >= 0 && j < draft.edges.length && draft.edges[j]!.source !== source) j += delta;
  if (j < 0 || j >= draft.edges.length) return draft;
  const edges = [...draft.edges];
  [edges[i], edges[j]] = [edges[j]!, edges[i]!];
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
    const src = byIndex && byIndex.node_key === n.node_key ? byIndex : laidOut.nodes.find((m) => m.node_key === n.node_key);
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

// ---------------------------------------------------------------- history

export interface DraftHistory {
  draft: GraphDraft;
  past: GraphDraft[];
  future: GraphDraft[];
  /** The last saved draft; `draft !== saved` means there are unsaved changes. */
  saved: GraphDraft;
  /** Consecutive commits with the same key (typing in one field, one drag) make one undo step. */
  lastKey: string | null;
}

export const HISTORY_LIMIT = 100;

export function historyFrom(draft: GraphDraft): DraftHistory {
  return { draft, past: [], future: [], saved: draft, lastKey: null };
}

export function commit(h: DraftHistory, next: GraphDraft, coalesceKey: string | null = null): DraftHistory {
  if (next === h.draft) return h;
  if (coalesceKey !== null && coalesceKey === h.lastKey) {
    return { ...h, draft: next, future: [] };
  }
  const past = [...h.past, h.draft];
  if (past.length > HISTORY_LIMIT) past.splice(0, past.length - HISTORY_LIMIT);
  return { ...h, draft: next, past, future: [], lastKey: coalesceKey };
}

export function undo(h: DraftHistory): DraftHistory {
  if (h.past.length === 0) return h;
  const prev = h.past[h.past.length - 1]!;
  return { ...h, draft: prev, past: h.past.slice(0, -1), future: [h.draft, ...h.future], lastKey: null };
}

export function redo(h: DraftHistory): DraftHistory {
  if (h.future.length === 0) return h;
  const [next, ...rest] = h.future;
  return { ...h, draft: next!, past: [...h.past, h.draft], future: rest, lastKey: null };
}

export function markSaved(h: DraftHistory, saved: GraphDraft = h.draft): DraftHistory {
  return { ...h, saved, draft: saved, lastKey: null };
}

export function isDirty(h: DraftHistory): boolean {
  return h.draft !== h.saved;
}

// ---------------------------------------------------------------- problems on the canvas

export interface ElementProblems {
  errors: string[];
  warnings: string[];
}

export interface ProblemMap {
  nodes: Map<string, ElementProblems>;
  edges: Map<string, ElementProblems>;
  /** Problems that belong to no single node or edge (e.g. `stages`, `graph`). */
  general: { kind: 'error' | 'warning'; field: string; message: string }[];
  errorCount: number;
  warningCount: number;
}

const ELEMENT_FIELD = /^(nodes|edges)\[(\d+)\](?:\.(.+))?$/;

function bucket(map: Map<string, ElementProblems>, id: string): ElementProblems {
  let b = map.get(id);
  if (!b) map.set(id, (b = { errors: [], warnings: [] }));
  return b;
}

function label(field: string | undefined, message: string): string {
  return field ? `${field}: ${message}` : message;
}

/**
 * Puts `{field, message}` problems (client validateGraph or the API's 400) on the draft element they
 * name: `nodes[3].agent_id` → the 4th node, `edges[0].condition` → the 1st edge; a warning's
 * `node_key` wins over its field. Indexes refer to `draft` (the draft that was validated or sent).
 */
export function mapProblems(draft: GraphDraft, errors: readonly FieldError[], warnings: readonly GraphWarning[] = []): ProblemMap {
  const out: ProblemMap = { nodes: new Map(), edges: new Map(), general: [], errorCount: errors.length, warningCount: warnings.length };
  const place = (kind: 'error' | 'warning', field: string, message: string, nodeKey?: string) => {
    if (nodeKey !== undefined) {
      const n = draft.nodes.find((x) => x.node_key === nodeKey);
      if (n) {
        const b = bucket(out.nodes, n.uid);
        (kind === 'error' ? b.errors : b.warnings).push(message);
        return;
      }
    }
    const m = ELEMENT_FIELD.exec(field);
    if (m) {
      const index = Number(m[2]);
      const rest = m[3];
      if (m[1] === 'nodes' && draft.nodes[index]) {
        const b = bucket(out.nodes, draft.nodes[index].uid);
        (kind === 'error' ? b.errors : b.warnings).push(label(rest, message));
        return;
      }
      if (m[1] === 'edges' && draft.edges[index]) {
        const b = bucket(out.edges, draft.edges[index].id);
        (kind === 'error' ? b.errors : b.warnings).push(label(rest, message));
        return;
      }
    }
    out.general.push({ kind, field, message });
  };
  for (const e of errors) place('error', e.field, e.message);
  for (const w of warnings) place('warning', w.field, w.message, w.node_key);
  return out;
}

/** Union of two problem maps (client validation + the API's answer), without repeated messages. */
export function mergeProblemMaps(a: ProblemMap | null, b: ProblemMap | null): ProblemMap | null {
  if (!a) return b;
  if (!b) return a;
  const mergeInto = (target: Map<string, ElementProblems>, src: Map<string, ElementProblems>) => {
    for (const [id, p] of src) {
      const t = target.get(id);
      if (!t) {
        target.set(id, { errors: [...p.errors], warnings: [...p.warnings] });
        continue;
      }
      for (const m of p.errors) if (!t.errors.includes(m)) t.errors.push(m);
      for (const m of p.warnings) if (!t.warnings.includes(m)) t.warnings.push(m);
    }
  };
  const copy = (m: Map<string, ElementProblems>) => new Map([...m].map(([k, v]) => [k, { errors: [...v.errors], warnings: [...v.warnings] }]));
  const nodes = copy(a.nodes);
  const edges = copy(a.edges);
  mergeInto(nodes, b.nodes);
  mergeInto(edges, b.edges);
  const general = [...a.general];
  for (const g of b.general) if (!general.some((x) => x.kind === g.kind && x.message === g.message)) general.push(g);
  const count = (kind: 'errors' | 'warnings') =>
    [...nodes.values(), ...edges.values()].reduce((n, p) => n + p[kind].length, 0) +
    general.filter((g) => g.kind === (kind === 'errors' ? 'error' : 'warning')).length;
  return { nodes, edges, general, errorCount: count('errors'), warningCount: count('warnings') };
}

/** The problems of one node (`kind: 'nodes'`, by uid) or edge (by id). */
export function problemsFor(map: ProblemMap | null, kind: 'nodes' | 'edges', id: string): ElementProblems | undefined {
  return map?.[kind].get(id);
}

// ---------------------------------------------------------------- stage colours

const STAGE_PALETTE = ['#6366f1', '#0ea5e9', '#10b981', '#f59e0b', '#ef4444', '#8b5cf6', '#14b8a6', '#ec4899', '#84cc16', '#f97316'];
export const NO_STAGE_COLOR = '#94a3b8';

export function stageColor(stage: string | null | undefined, stages: readonly string[]): string {
  if (!stage) return NO_STAGE_COLOR;
  const i = stages.indexOf(stage);
  if (i < 0) return NO_STAGE_COLOR;
  return STAGE_PALETTE[i % STAGE_PALETTE.length]!;
}

// ---------------------------------------------------------------- React Flow

export interface StepNodeData extends Record<string, unknown> {
  node: DraftNode;
  color: string;
  agentName: string | null;
  errors: readonly string[];
  warnings: readonly string[];
  readOnly: boolean;
}

export interface StartNodeData extends Record<string, unknown> {
  label: string;
}

export type StepFlowNode = Node<StepNodeData, 'step'>;
export type StartFlowNode = Node<StartNodeData, 'start'>;
export type FlowNode = StepFlowNode | StartFlowNode;

export interface FlowEdgeData extends Record<string, unknown> {
  condition: string | null;
  errors: readonly string[];
  /** For a loop (backwards) edge: the y of its horizontal run, below the nodes it passes (see edgeRoute). */
  loopY?: number;
}
export type FlowEdge = Edge<FlowEdgeData>;

export interface FlowView {
  stages: readonly string[];
  agentName: (id: number | null) => string | null;
  selected: ReadonlySet<string>;
  problems: ProblemMap | null;
  readOnly: boolean;
  /**
   * Sizes React Flow measured (its `dimensions` changes). A controlled flow must hand them back on
   * every node object, or React Flow re-measures (hides) the node.
   */
  measured?: ReadonlyMap<string, { width: number; height: number }>;
}

const NO_PROBLEMS: readonly string[] = [];

/**
 * Memo cache for toFlowNodes/toFlowEdges: an unchanged draft element with unchanged decorations maps
 * to the same React Flow object, so with 500 nodes a drag re-renders one node, not 500.
 */
export interface FlowCache {
  nodes: Map<string, { src: DraftNode; sig: string; out: StepFlowNode }>;
  edges: Map<string, { src: DraftEdge; sig: string; out: FlowEdge }>;
  start: { x: number; y: number; sig: string; out: StartFlowNode } | null;
  /** The last arrays returned: handed back as-is when no element changed (React Flow skips work). */
  lastNodes: FlowNode[] | null;
  lastEdges: FlowEdge[] | null;
}

function sameElements<T>(prev: readonly T[] | null, next: readonly T[]): boolean {
  if (!prev || prev.length !== next.length) return false;
  for (let i = 0; i < next.length; i++) if (prev[i] !== next[i]) return false;
  return true;
}

export function createFlowCache(): FlowCache {
  return { nodes: new Map(), edges: new Map(), start: null, lastNodes: null, lastEdges: null };
}

export function toFlowNodes(draft: GraphDraft, view: FlowView, cache: FlowCache = createFlowCache()): FlowNode[] {
  const out: FlowNode[] = [];
  const startSel = view.selected.has(START_ID);
  const startSize = view.measured?.get(START_ID);
  const startSig = `${startSel ? 1 : 0}|${view.readOnly ? 1 : 0}|${startSize ? `${startSize.width}x${startSize.height}` : ''}`;
  const sc = cache.start;
  if (sc && sc.x === draft.start.x && sc.y === draft.start.y && sc.sig === startSig) {
    out.push(sc.out);
  } else {
    const node: StartFlowNode = {
      id: START_ID,
      type: 'start',
      position: { x: draft.start.x, y: draft.start.y },
      data: { label: 'Start' },
      deletable: false,
      draggable: !view.readOnly,
      connectable: !view.readOnly,
      selected: startSel,
      ariaLabel: 'Start (virtual origin)',
      ...(startSize ? { measured: { ...startSize } } : {}),
    };
    cache.start = { x: draft.start.x, y: draft.start.y, sig: startSig, out: node };
    out.push(node);
  }
  const seen = new Set<string>();
  for (const n of draft.nodes) {
    seen.add(n.uid);
    const p = view.problems?.nodes.get(n.uid);
    const color = stageColor(n.stage_label, view.stages);
    const agentName = n.type === 'agent' ? view.agentName(n.agent_id) : null;
    const selected = view.selected.has(n.uid);
    const size = view.measured?.get(n.uid);
    const sig = `${color}|${agentName}|${selected ? 1 : 0}|${view.readOnly ? 1 : 0}|${size ? `${size.width}x${size.height}` : ''}|${p ? p.errors.join('\u0001') + '\u0002' + p.warnings.join('\u0001') : ''}`;
    const hit = cache.nodes.get(n.uid);
    if (hit && hit.src === n && hit.sig === sig) {
      out.push(hit.out);
      continue;
    }
    const node: StepFlowNode = {
      id: n.uid,
      type: 'step',
      position: { x: n.position_x, y: n.position_y },
      data: {
        node: n,
        color,
        agentName,
        errors: p?.errors ?? NO_PROBLEMS,
        warnings: p?.warnings ?? NO_PROBLEMS,
        readOnly: view.readOnly,
      },
      selected,
      deletable: !view.readOnly,
      draggable: !view.readOnly,
      connectable: !view.readOnly,
      ariaLabel: `${n.type} node ${n.node_key}`,
      ...(size ? { measured: { ...size } } : {}),
    };
    cache.nodes.set(n.uid, { src: n, sig, out: node });
    out.push(node);
  }
  for (const id of cache.nodes.keys()) if (!seen.has(id)) cache.nodes.delete(id);
  if (sameElements(cache.lastNodes, out)) return cache.lastNodes!;
  cache.lastNodes = out;
  return out;
}

/** Canvas size of a step node before React Flow has measured it (see flow-nodes.tsx and the CSS). */
export const NODE_W = 180;
export const NODE_H = 64;
/** How far below the lowest node it passes a loop edge runs. */
export const LOOP_CLEARANCE = 36;
const PLACEMENT_GAP = 8;

/**
 * How an edge is drawn. A forward edge (target right of source) is an ordinary curve. A loop edge (the
 * target is left of, or level with, its source, e.g. "review → write") would be drawn straight back
 * through the nodes between them and over the forward edges; it is routed around them instead: down
 * from the source, left below every node whose box lies in its horizontal span, and up into the target.
 * An edge into the next stage lane (target below the source's row) runs in the gap between the lanes.
 */
export function edgeRoute(
  source: XY,
  target: XY,
  nodes: readonly { position_x: number; position_y: number }[],
  size: { w: number; h: number } = { w: NODE_W, h: NODE_H },
): { kind: 'forward' } | { kind: 'loop' | 'wrap'; loopY: number } {
  if (target.x >= source.x) return { kind: 'forward' };
  // into a lane below: turn in the gap between the source's row and the target's
  if (target.y >= source.y + size.h + 2 * PLACEMENT_GAP) return { kind: 'wrap', loopY: Math.round((source.y + size.h + target.y) / 2) };
  const left = Math.min(source.x, target.x) - size.w;
  const right = Math.max(source.x, target.x) + size.w;
  const top = Math.min(source.y, target.y);
  let bottom = Math.max(source.y, target.y) + size.h;
  for (const n of nodes) {
    if (n.position_x + size.w < left || n.position_x > right) continue;
    if (n.position_y + size.h < top || n.position_y > bottom + LOOP_CLEARANCE) continue;
    bottom = Math.max(bottom, n.position_y + size.h);
  }
  return { kind: 'loop', loopY: bottom + LOOP_CLEARANCE };
}

export function toFlowEdges(draft: GraphDraft, view: FlowView, cache: FlowCache = createFlowCache()): FlowEdge[] {
  const typeByUid = new Map(draft.nodes.map((n) => [n.uid, n.type]));
  const posByUid = new Map<string, XY>(draft.nodes.map((n) => [n.uid, { x: n.position_x, y: n.position_y }]));
  posByUid.set(START_ID, draft.start);
  const keyByUid = new Map(draft.nodes.map((n) => [n.uid, n.node_key]));
  keyByUid.set(START_ID, START_KEY);
  const out: FlowEdge[] = [];
  const seen = new Set<string>();
  for (const e of draft.edges) {
    seen.add(e.id);
    const p = view.problems?.edges.get(e.id);
    const selected = view.selected.has(e.id);
    const fromBranch = typeByUid.get(e.source) === 'branch';
    const labelText = e.condition?.trim() ? e.condition : fromBranch ? 'default' : undefined;
    const sp = posByUid.get(e.source);
    const tp = posByUid.get(e.target);
    const route = sp && tp ? edgeRoute(sp, tp, draft.nodes) : { kind: 'forward' as const };
    const loopY = route.kind === 'forward' ? undefined : route.loopY;
    const isLoop = route.kind === 'loop';
    const sig = `${selected ? 1 : 0}|${view.readOnly ? 1 : 0}|${fromBranch ? 1 : 0}|${route.kind}${loopY ?? ''}|${keyByUid.get(e.source)}>${keyByUid.get(e.target)}|${p ? p.errors.join('\u0001') : ''}`;
    const hit = cache.edges.get(e.id);
    if (hit && hit.src === e && hit.sig === sig) {
      out.push(hit.out);
      continue;
    }
    const hasError = !!p && p.errors.length > 0;
    const edge: FlowEdge = {
      id: e.id,
      source: e.source,
      target: e.target,
      label: labelText && labelText.length > 40 ? `${labelText.slice(0, 39)}…` : labelText,
      selected,
      deletable: !view.readOnly,
      className: `${hasError ? 'edge-error' : ''}${e.condition ? ' edge-conditional' : ''}${isLoop ? ' edge-loop' : ''}`.trim() || undefined,
      data: { condition: e.condition, errors: p?.errors ?? NO_PROBLEMS, ...(loopY !== undefined ? { loopY } : {}) },
      ...(loopY !== undefined ? { type: 'loop' } : {}),
      ariaLabel: `Edge from ${keyByUid.get(e.source) ?? e.source} to ${keyByUid.get(e.target) ?? e.target}${isLoop ? ' (loop back)' : ''}`,
    };
    cache.edges.set(e.id, { src: e, sig, out: edge });
    out.push(edge);
  }
  for (const id of cache.edges.keys()) if (!seen.has(id)) cache.edges.delete(id);
  if (sameElements(cache.lastEdges, out)) return cache.lastEdges!;
  cache.lastEdges = out;
  return out;
}

/** Flow positions after a drag → a position map for moveNodes. */
export function positionsFromFlow(changes: readonly { id: string; position?: XY | undefined }[]): Map<string, XY> {
  const m = new Map<string, XY>();
  for (const c of changes) if (c.position && Number.isFinite(c.position.x) && Number.isFinite(c.position.y)) m.set(c.id, { x: c.position.x, y: c.position.y });
  return m;
}

/** Flow nodes/edges → a draft (for a graph built directly in React Flow terms). */
export function draftFromFlow(nodes: readonly FlowNode[], edges: readonly Pick<FlowEdge, 'id' | 'source' | 'target' | 'data'>[]): GraphDraft {
  const steps = nodes.filter((n): n is StepFlowNode => n.type === 'step');
  const start = nodes.find((n) => n.type === 'start');
  const draftNodes: DraftNode[] = steps.map((n) => {
    const { uid: _uid, ...fields } = n.data.node;
    return { ...fields, uid: n.id, position_x: n.position.x, position_y: n.position.y };
  });
  const ids = new Set([START_ID, ...draftNodes.map((n) => n.uid)]);
  const draftEdges: DraftEdge[] = edges
    .filter((e) => ids.has(e.source) && ids.has(e.target))
    .map((e) => ({ id: e.id, source: e.source, target: e.target, condition: e.data?.condition ?? null }));
  return {
    nodes: draftNodes,
    edges: draftEdges,
    start: start ? { x: start.position.x, y: start.position.y } : { x: 0, y: 0 },
    seq: draftNodes.length + draftEdges.length,
  };
}

/** Graphs with more nodes than this open focused on their beginning instead of fitted whole. */
export const LARGE_GRAPH = 150;
const OPENING_NODES = 30;

/**
 * What the editor fits into view when it opens: the current stage, i.e. the first stage (in the pack's
 * order) that has nodes, with Start and whatever Start leads to — the editor then clamps the zoom to a
 * readable minimum (workflow-editor.tsx). A large graph opens on Start and the nodes nearest to it. The
 * mini map and "Fit view" show the whole graph. `undefined` = fit everything (no staged nodes).
 */
export function openingFocus(draft: GraphDraft, stages: readonly string[] = []): { id: string }[] | undefined {
  if (draft.nodes.length > LARGE_GRAPH) {
    const { x, y } = draft.start;
    const nearest = draft.nodes
      .map((n) => ({ id: n.uid, d: (n.position_x - x) ** 2 + (n.position_y - y) ** 2 }))
      .sort((a, b) => a.d - b.d)
      .slice(0, OPENING_NODES);
    return [{ id: START_ID }, ...nearest.map(({ id }) => ({ id }))];
  }
  const stage = stages.find((st) => draft.nodes.some((n) => n.stage_label === st));
  if (stage === undefined) return undefined;
  const ids = new Set(draft.nodes.filter((n) => n.stage_label === stage).map((n) => n.uid));
  for (const e of draft.edges) if (e.source === START_ID) ids.add(e.target);
  return [{ id: START_ID }, ...[...ids].map((id) => ({ id }))];
}

/** Space kept free around a node when placing a new one. */
export const PLACEMENT_MARGIN = 24;

/**
 * Where a new node goes: `desired` when nothing is there, else the nearest free slot on a grid of
 * node-sized steps around it (rings, nearest first), so a node from the palette never lands on top of
 * another one (where it would look connected when it is not).
 */
export function freeSpot(nodes: readonly { position_x: number; position_y: number }[], desired: XY, size: { w: number; h: number } = { w: NODE_W, h: NODE_H }): XY {
  const w = size.w + PLACEMENT_MARGIN;
  const h = size.h + PLACEMENT_MARGIN;
  const free = (p: XY) => nodes.every((n) => Math.abs(n.position_x - p.x) >= w || Math.abs(n.position_y - p.y) >= h);
  if (free(desired)) return desired;
  for (let ring = 1; ring <= 60; ring++) {
    const candidates: XY[] = [];
    for (let dx = -ring; dx <= ring; dx++) {
      for (let dy = -ring; dy <= ring; dy++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue;
        candidates.push({ x: desired.x + dx * w, y: desired.y + dy * h });
      }
    }
    candidates.sort((a, b) => Math.hypot(a.x - desired.x, a.y - desired.y) - Math.hypot(b.x - desired.x, b.y - desired.y) || a.y - b.y || a.x - b.x);
    const spot = candidates.find(free);
    if (spot) return spot;
  }
  return desired;
}

export interface StageLane {
  stage: string;
  color: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Padding of a stage lane around its nodes. */
export const LANE_PAD = 28;

/**
 * The tinted band drawn behind each stage's nodes (its bounding box plus padding), in stage order, so
 * the phases of a pack are visible on the canvas. Stages without nodes have no lane.
 */
export function stageLanes(nodes: readonly DraftNode[], stages: readonly string[], size: { w: number; h: number } = { w: NODE_W, h: NODE_H }): StageLane[] {
  const box = new Map<string, { x0: number; y0: number; x1: number; y1: number }>();
  for (const n of nodes) {
    if (!n.stage_label) continue;
    const b = box.get(n.stage_label);
    const x1 = n.position_x + size.w;
    const y1 = n.position_y + size.h;
    if (!b) box.set(n.stage_label, { x0: n.position_x, y0: n.position_y, x1, y1 });
    else {
      b.x0 = Math.min(b.x0, n.position_x);
      b.y0 = Math.min(b.y0, n.position_y);
      b.x1 = Math.max(b.x1, x1);
      b.y1 = Math.max(b.y1, y1);
    }
  }
  const out: StageLane[] = [];
  for (const stage of stages) {
    const b = box.get(stage);
    if (!b) continue;
    out.push({
      stage,
      color: stageColor(stage, stages),
      x: b.x0 - LANE_PAD,
      y: b.y0 - LANE_PAD - 14,
      width: b.x1 - b.x0 + 2 * LANE_PAD,
      height: b.y1 - b.y0 + 2 * LANE_PAD + 14,
    });
  }
  return out;
}

// ---------------------------------------------------------------- copy, paste, duplicate

/** Copied nodes with the edges between them (edges to nodes outside the selection are left out). */
export interface Clip {
  nodes: DraftNode[];
  edges: { from: number; to: number; condition: string | null }[];
}

export function copySelection(draft: GraphDraft, uids: ReadonlySet<string>): Clip | null {
  const nodes = draft.nodes.filter((n) => uids.has(n.uid));
  if (nodes.length === 0) return null;
  const index = new Map(nodes.map((n, i) => [n.uid, i]));
  const edges = draft.edges
    .filter((e) => index.has(e.source) && index.has(e.target))
    .map((e) => ({ from: index.get(e.source)!, to: index.get(e.target)!, condition: e.condition }));
  return { nodes: nodes.map((n) => ({ ...n, config: { ...n.config } })), edges };
}

/**
 * Adds a clip's nodes (new keys `<key>_copy_N`, same agent, stage and config) and its inner edges, moved
 * down-right as a group until none of them overlaps an existing node. Returns the new node ids.
 */
export function pasteClip(draft: GraphDraft, clip: Clip): { draft: GraphDraft; uids: string[] } {
  const w = NODE_W + PLACEMENT_MARGIN;
  const h = NODE_H + PLACEMENT_MARGIN;
  const clear = (dx: number, dy: number) =>
    clip.nodes.every((c) => draft.nodes.every((n) => Math.abs(n.position_x - (c.position_x + dx)) >= w || Math.abs(n.position_y - (c.position_y + dy)) >= h));
  let step = 1;
  while (step < 200 && !clear(step * 40, step * 40)) step++;
  let d = draft;
  const uids: string[] = [];
  for (const c of clip.nodes) {
    const r = addNode(d, {
      type: c.type,
      position: { x: c.position_x + step * 40, y: c.position_y + step * 40 },
      stage_label: c.stage_label,
      agent_id: c.agent_id,
      node_key: uniqueNodeKey(`${c.node_key}_copy`, d.nodes),
      config: c.config,
    });
    d = r.draft;
    uids.push(r.uid);
  }
  for (const e of clip.edges) d = connect(d, uids[e.from]!, uids[e.to]!, e.condition).draft;
  return { draft: d, uids };
}
