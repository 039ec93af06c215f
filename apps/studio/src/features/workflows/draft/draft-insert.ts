// Quick-add's edits (pure): a node added after another (connected from it), or inserted onto an edge
// (a → b becomes a → new → b, the edge keeping its place in the order and its condition on the first half).
import { addNode, connect, type NewNode } from './draft-edits';
import type { GraphDraft } from './draft-model';

/** Adds `spec` and, when `from` is a node (or start), an edge from it to the new node. */
export function addAfter(draft: GraphDraft, from: string | null, spec: NewNode): { draft: GraphDraft; uid: string } {
  const added = addNode(draft, spec);
  if (!from) return added;
  const linked = connect(added.draft, from, added.uid);
  return { draft: linked.draft, uid: added.uid };
}

/** Inserts `spec` onto edge `edgeId`; the same draft back when there is no such edge. */
export function insertOnEdge(
  draft: GraphDraft,
  edgeId: string,
  spec: NewNode,
): { draft: GraphDraft; uid: string | null } {
  const at = draft.edges.findIndex((e) => e.id === edgeId);
  if (at < 0) return { draft, uid: null };
  const old = draft.edges[at];
  const added = addNode(draft, spec);
  let seq = added.draft.seq;
  const taken = new Set(draft.edges.map((e) => e.id));
  const newId = () => {
    do seq++;
    while (taken.has(`e${seq}`));
    return `e${seq}`;
  };
  const first = { id: newId(), source: old.source, target: added.uid, condition: old.condition };
  const second = { id: newId(), source: added.uid, target: old.target, condition: null };
  const edges = [...draft.edges.slice(0, at), first, second, ...draft.edges.slice(at + 1)];
  return { draft: { ...added.draft, edges, seq }, uid: added.uid };
}
