// The editor's problems list: every problem of a ProblemMap as one row, errors first, named by the
// node_key (or "from → to" for an edge, the field for a general problem) it belongs to.
import type { ProblemMap } from './draft-problems';
import { START_ID, type DraftEdge, type DraftNode } from './draft-model';

export interface ProblemEntry {
  key: string;
  kind: 'error' | 'warning';
  where: string;
  message: string;
  /** The node (or edge) to focus when the row is clicked. */
  uid?: string;
}

export function listProblems(
  problems: ProblemMap | null,
  nodes: readonly DraftNode[],
  edges: readonly DraftEdge[],
): ProblemEntry[] {
  if (!problems) return [];
  const list: ProblemEntry[] = [];
  for (const n of nodes) {
    const p = problems.nodes.get(n.uid);
    if (!p) continue;
    p.errors.forEach((m, i) =>
      list.push({ key: `ne:${n.uid}:${i}`, kind: 'error', where: n.node_key, message: m, uid: n.uid }),
    );
    p.warnings.forEach((m, i) =>
      list.push({ key: `nw:${n.uid}:${i}`, kind: 'warning', where: n.node_key, message: m, uid: n.uid }),
    );
  }
  const keyOf = (id: string) => (id === START_ID ? 'start' : (nodes.find((n) => n.uid === id)?.node_key ?? id));
  for (const e of edges) {
    const p = problems.edges.get(e.id);
    if (!p) continue;
    p.errors.forEach((m, i) =>
      list.push({
        key: `ee:${e.id}:${i}`,
        kind: 'error',
        where: `${keyOf(e.source)} → ${keyOf(e.target)}`,
        message: m,
        uid: e.id,
      }),
    );
  }
  problems.general.forEach((g, i) => list.push({ key: `g:${i}`, kind: g.kind, where: g.field, message: g.message }));
  return list.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'error' ? -1 : 1));
}
