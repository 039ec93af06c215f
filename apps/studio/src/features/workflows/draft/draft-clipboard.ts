// Copy, paste and duplicate: a selection's nodes with the edges between them.
import { NODE_H, NODE_W, PLACEMENT_MARGIN } from './canvas-geometry';
import { addNode, connect, uniqueNodeKey } from './draft-edits';
import type { DraftNode, GraphDraft } from './draft-model';

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
    clip.nodes.every((c) =>
      draft.nodes.every(
        (n) => Math.abs(n.position_x - (c.position_x + dx)) >= w || Math.abs(n.position_y - (c.position_y + dy)) >= h,
      ),
    );
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
  for (const e of clip.edges) d = connect(d, uids[e.from], uids[e.to], e.condition).draft;
  return { draft: d, uids };
}
