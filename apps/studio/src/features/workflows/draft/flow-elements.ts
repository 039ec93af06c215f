// The draft as React Flow nodes and edges (memoised so an unchanged element keeps its object), and back.
import type { Edge, Node } from '@xyflow/react';
import { edgeRoute } from './canvas-geometry';
import { START_ID, START_KEY, type DraftEdge, type DraftNode, type GraphDraft, type XY } from './draft-model';
import type { ProblemMap } from './draft-problems';
import { stageColor } from './stage-colors';

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
      className:
        `${hasError ? 'edge-error' : ''}${e.condition ? ' edge-conditional' : ''}${isLoop ? ' edge-loop' : ''}`.trim() ||
        undefined,
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
  for (const c of changes)
    if (c.position && Number.isFinite(c.position.x) && Number.isFinite(c.position.y))
      m.set(c.id, { x: c.position.x, y: c.position.y });
  return m;
}

/** Flow nodes/edges → a draft (for a graph built directly in React Flow terms). */
export function draftFromFlow(
  nodes: readonly FlowNode[],
  edges: readonly Pick<FlowEdge, 'id' | 'source' | 'target' | 'data'>[],
): GraphDraft {
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
