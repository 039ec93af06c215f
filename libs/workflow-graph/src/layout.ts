// Automatic canvas layout: one horizontal lane per stage, top to bottom in stage order; inside a lane
// the nodes read left to right in breadth-first order from START. A pipeline of many stages is thus a
// short stack of lanes rather than one long line (issue 13: "14 nodes on one line" could not be read).
// Deterministic, so "auto layout" twice gives the same picture.

import { indexGraph } from './traverse';
import { START, type Graph, type GraphNode } from './types';

export const LAYOUT_COLUMN_WIDTH = 260;
export const LAYOUT_ROW_HEIGHT = 120;
/** Extra space between two stage lanes, so edges from one lane to the next run in the gap. */
export const LAYOUT_LANE_GAP = 60;

interface Placement {
  band: number;
  /** Column inside the lane. */
  column: number;
}

/**
 * Returns the graph with new positions (nodes and edges otherwise unchanged, order preserved).
 * A node labelled with one of `stages` sits in that stage's lane; a node without a stage (a gate, a
 * branch) sits in the lane of the node it is reached from, one column further right, as does a node
 * that follows another of its own stage. Nodes sharing a lane column are stacked in breadth-first order.
 * Unstaged nodes that cannot be reached from start are put in one extra lane after the stages.
 */
export function autoLayout(graph: Graph, stages: readonly string[]): Graph {
  const index = indexGraph(graph);
  const stageBand = new Map<string, number>();
  stages.forEach((stage, i) => {
    if (!stageBand.has(stage)) stageBand.set(stage, i);
  });
  const orphanBand = Math.max(stages.length, 1);

  // Breadth-first from START, then from each node not reached yet, in node order.
  const parent = new Map<string, string | null>();
  const fromStart = new Set<string>();
  const order: string[] = [];
  const walk = (rootKey: string): void => {
    const queue = [rootKey];
    if (rootKey !== START) {
      parent.set(rootKey, null);
      order.push(rootKey);
    }
    for (let head = 0; head < queue.length; head++) {
      const key = queue[head] as string;
      for (const edge of index.outgoing.get(key) ?? []) {
        const to = edge.to_node;
        if (parent.has(to) || !index.nodes.has(to)) continue;
        parent.set(to, key === START ? null : key);
        if (rootKey === START) fromStart.add(to);
        order.push(to);
        queue.push(to);
      }
    }
  };
  walk(START);
  for (const node of graph.nodes) {
    if (!parent.has(node.node_key)) walk(node.node_key);
  }

  const placements = new Map<string, Placement>();
  for (const key of order) {
    const node = index.nodes.get(key) as GraphNode;
    const parentKey = parent.get(key) ?? null;
    const above = parentKey === null ? undefined : placements.get(parentKey);
    const band = node.stage_label === null ? undefined : stageBand.get(node.stage_label);
    let placement: Placement;
    if (band !== undefined) {
      placement = { band, column: above !== undefined && above.band === band ? above.column + 1 : 0 };
    } else if (above !== undefined) {
      placement = { band: above.band, column: above.column + 1 };
    } else {
      placement = { band: fromStart.has(key) ? 0 : orphanBand, column: 0 };
    }
    placements.set(key, placement);
  }

  // Rows used in each lane (nodes sharing a lane column stack downwards); every stage keeps a lane.
  const stackRow = new Map<string, number>();
  const used = new Map<string, number>();
  const laneRows: number[] = [];
  for (const key of order) {
    const placement = placements.get(key) as Placement;
    const cell = `${placement.band}:${placement.column}`;
    const row = used.get(cell) ?? 0;
    used.set(cell, row + 1);
    stackRow.set(key, row);
    laneRows[placement.band] = Math.max(laneRows[placement.band] ?? 0, row + 1);
  }
  const laneTop: number[] = [];
  let top = 0;
  for (let band = 0; band <= orphanBand; band++) {
    laneTop[band] = top;
    const rows = laneRows[band] ?? (band < orphanBand ? 1 : 0);
    if (rows > 0) top += rows * LAYOUT_ROW_HEIGHT + LAYOUT_LANE_GAP;
  }

  const positions = new Map<string, { x: number; y: number }>();
  for (const key of order) {
    const placement = placements.get(key) as Placement;
    positions.set(key, {
      x: placement.column * LAYOUT_COLUMN_WIDTH,
      y: (laneTop[placement.band] ?? 0) + (stackRow.get(key) ?? 0) * LAYOUT_ROW_HEIGHT,
    });
  }

  return {
    nodes: graph.nodes.map((node) => {
      const position = positions.get(node.node_key) ?? { x: 0, y: 0 };
      return { ...node, position_x: position.x, position_y: position.y };
    }),
    edges: graph.edges.map((edge) => ({ ...edge })),
  };
}
