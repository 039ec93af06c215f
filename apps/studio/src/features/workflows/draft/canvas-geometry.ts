// Where things go on the canvas: node size, edge routing around nodes, the opening view, a free spot
// for a new node, and the stage lanes behind the nodes.
import { START_ID, type DraftNode, type GraphDraft, type XY } from './draft-model';
import { stageColor } from './stage-colors';

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
  if (target.y >= source.y + size.h + 2 * PLACEMENT_GAP)
    return { kind: 'wrap', loopY: Math.round((source.y + size.h + target.y) / 2) };
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
export function freeSpot(
  nodes: readonly { position_x: number; position_y: number }[],
  desired: XY,
  size: { w: number; h: number } = { w: NODE_W, h: NODE_H },
): XY {
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
    candidates.sort(
      (a, b) =>
        Math.hypot(a.x - desired.x, a.y - desired.y) - Math.hypot(b.x - desired.x, b.y - desired.y) ||
        a.y - b.y ||
        a.x - b.x,
    );
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
export function stageLanes(
  nodes: readonly DraftNode[],
  stages: readonly string[],
  size: { w: number; h: number } = { w: NODE_W, h: NODE_H },
): StageLane[] {
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
