// The editor's edits as callbacks: each applies one pure graph-draft.ts function to the draft and
// commits it to the undo history (typing in one field coalesces into one undo step).
import { useCallback, type Dispatch, type RefObject, type SetStateAction } from 'react';
import type { Connection, OnDelete } from '@xyflow/react';
import { autoLayout } from '@service/workflow-graph';
import {
  applyLayout,
  commit,
  connect,
  deleteElements,
  draftToGraph,
  moveEdge,
  redo,
  setArtifact,
  undo,
  updateEdge,
  updateNode,
  type DraftHistory,
  type FlowEdge,
  type FlowNode,
  type GraphDraft,
  type NodePatch,
} from '../graph-draft';

export function useDraftEdits({
  readOnly,
  stages,
  histRef,
  setHist,
  setSelected,
  setNotice,
  fit,
}: {
  readOnly: boolean;
  stages: readonly string[];
  histRef: RefObject<DraftHistory>;
  setHist: Dispatch<SetStateAction<DraftHistory>>;
  setSelected: Dispatch<SetStateAction<ReadonlySet<string>>>;
  setNotice: Dispatch<SetStateAction<string | null>>;
  /** Fits the whole graph into view (after an auto layout). */
  fit: () => void;
}) {
  const apply = useCallback(
    (fn: (d: GraphDraft) => GraphDraft, key: string | null = null) => {
      setHist((h) => commit(h, fn(h.draft), key));
      setNotice(null);
    },
    [setHist, setNotice],
  );

  const removeElements = useCallback(
    (ids: { nodeIds: string[]; edgeIds: string[] }) => {
      if (readOnly) return;
      apply((d) => deleteElements(d, ids));
      setSelected((s) => {
        const next = new Set(s);
        for (const id of [...ids.nodeIds, ...ids.edgeIds]) next.delete(id);
        return next;
      });
    },
    [apply, readOnly, setSelected],
  );

  const onDelete: OnDelete<FlowNode, FlowEdge> = useCallback(
    ({ nodes: ns, edges: es }) => removeElements({ nodeIds: ns.map((n) => n.id), edgeIds: es.map((e) => e.id) }),
    [removeElements],
  );

  const onConnect = useCallback(
    (c: Connection) => {
      if (readOnly) return;
      const base = histRef.current.draft;
      const r = connect(base, c.source, c.target);
      if (r.error !== null) {
        setNotice(r.error);
        return;
      }
      setHist((h) => commit(h, h.draft === base ? r.draft : connect(h.draft, c.source, c.target).draft));
      setSelected(new Set([r.edgeId]));
      setNotice(null);
    },
    [histRef, readOnly, setHist, setNotice, setSelected],
  );

  const onNodeChange = useCallback(
    (uid: string, patch: NodePatch, field: string) => apply((d) => updateNode(d, uid, patch), `${field}:${uid}`),
    [apply],
  );
  const onArtifactChange = useCallback(
    (uid: string, value: string) => apply((d) => setArtifact(d, uid, value), `artifact:${uid}`),
    [apply],
  );
  const onEdgeChange = useCallback(
    (id: string, condition: string | null) => apply((d) => updateEdge(d, id, { condition }), `condition:${id}`),
    [apply],
  );
  const onMoveEdge = useCallback((id: string, delta: -1 | 1) => apply((d) => moveEdge(d, id, delta)), [apply]);

  const doUndo = useCallback(() => setHist((h) => undo(h)), [setHist]);
  const doRedo = useCallback(() => setHist((h) => redo(h)), [setHist]);

  const doLayout = useCallback(() => {
    if (readOnly) return;
    apply((d) => applyLayout(d, autoLayout(draftToGraph(d), stages)));
    requestAnimationFrame(() => requestAnimationFrame(fit));
  }, [apply, fit, readOnly, stages]);

  return {
    removeElements,
    onDelete,
    onConnect,
    onNodeChange,
    onArtifactChange,
    onEdgeChange,
    onMoveEdge,
    doUndo,
    doRedo,
    doLayout,
  };
}
