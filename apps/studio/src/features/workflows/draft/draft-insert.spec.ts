import { addNode, connect } from './draft-edits';
import { addAfter, insertOnEdge } from './draft-insert';
import { emptyDraft, START_ID, type GraphDraft } from './draft-model';

function chain(): { draft: GraphDraft; a: string; b: string; edge: string } {
  let d = emptyDraft();
  const a = addNode(d, { type: 'agent', position: { x: 0, y: 0 }, node_key: 'a' });
  const b = addNode(a.draft, { type: 'agent', position: { x: 300, y: 0 }, node_key: 'b' });
  d = connect(b.draft, START_ID, a.uid).draft;
  const e = connect(d, a.uid, b.uid, 'contains(reply, "x")');
  return { draft: connect(e.draft, b.uid, a.uid).draft, a: a.uid, b: b.uid, edge: e.edgeId! };
}

describe('quick-add edits', () => {
  it('inserts a node onto an edge, in the edge’s place, keeping its condition on the first half', () => {
    const { draft, a, b, edge } = chain();
    const r = insertOnEdge(draft, edge, { type: 'gate', position: { x: 150, y: 0 }, node_key: 'check' });
    expect(r.uid).not.toBeNull();
    const keys = new Map(r.draft.nodes.map((n) => [n.uid, n.node_key]));
    keys.set(START_ID, 'start');
    expect(r.draft.edges.map((e) => `${keys.get(e.source)}>${keys.get(e.target)}:${e.condition ?? ''}`)).toEqual([
      'start>a:',
      'a>check:contains(reply, "x")',
      'check>b:',
      'b>a:',
    ]);
    expect(new Set(r.draft.edges.map((e) => e.id)).size).toBe(4);
    expect(r.draft.edges.some((e) => e.source === a && e.target === b)).toBe(false);
  });

  it('adds a node after another, connected from it; an unknown edge changes nothing', () => {
    const { draft, b, edge } = chain();
    const r = addAfter(draft, b, { type: 'branch', position: { x: 600, y: 0 } });
    expect(r.draft.edges.at(-1)).toMatchObject({ source: b, target: r.uid, condition: null });
    expect(addAfter(draft, null, { type: 'gate', position: { x: 0, y: 0 } }).draft.edges).toHaveLength(3);
    expect(insertOnEdge(draft, 'nope', { type: 'gate', position: { x: 0, y: 0 } })).toEqual({ draft, uid: null });
    expect(edge).toBeTruthy();
  });
});
