// React Flow's change events for the editor: node drags become draft moves (one undo step per drag),
// measured sizes are kept for the controlled flow, and selection changes update the selected set.
import { useCallback, useRef, type Dispatch, type SetStateAction } from 'react';
import type { EdgeChange, NodeChange } from '@xyflow/react';
import { commit, moveNodes, type DraftHistory, type FlowEdge, type FlowNode, type XY } from '../graph-draft';

type SetState<T> = Dispatch<SetStateAction<T>>;

/** Applies `[id, selected]` pairs to a selection, keeping the rest. */
function applySelection(sel: readonly [string, boolean][]): SetStateAction<ReadonlySet<string>> {
  return (s) => {
    const next = new Set(s);
    for (const [id, on] of sel) {
      if (on) next.add(id);
      else next.delete(id);
    }
    return next;
  };
}

export function useCanvasChanges({
  readOnly,
  setHist,
  setMeasured,
  setSelected,
}: {
  readOnly: boolean;
  setHist: SetState<DraftHistory>;
  setMeasured: SetState<ReadonlyMap<string, { width: number; height: number }>>;
  setSelected: SetState<ReadonlySet<string>>;
}) {
  /** The undo key of the drag in progress: every move of one drag coalesces into one step. */
  const dragKey = useRef<string | null>(null);
  const dragCounter = useRef(0);

  const onNodesChange = useCallback(
    (changes: NodeChange<FlowNode>[]) => {
      const positions = new Map<string, XY>();
      const dims = new Map<string, { width: number; height: number }>();
      const sel: [string, boolean][] = [];
      for (const c of changes) {
        if (c.type === 'position' && c.position) positions.set(c.id, c.position);
        else if (c.type === 'dimensions' && c.dimensions) dims.set(c.id, c.dimensions);
        else if (c.type === 'select') sel.push([c.id, c.selected]);
      }
      if (positions.size && !readOnly) {
        const key = dragKey.current ?? `nudge:${++dragCounter.current}`;
        setHist((h) => commit(h, moveNodes(h.draft, positions), key));
      }
      if (dims.size) {
        setMeasured((m) => {
          const next = new Map(m);
          for (const [id, d] of dims) next.set(id, d);
          return next;
        });
      }
      if (sel.length) setSelected(applySelection(sel));
    },
    [readOnly, setHist, setMeasured, setSelected],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange<FlowEdge>[]) => {
      const sel: [string, boolean][] = [];
      for (const c of changes) if (c.type === 'select') sel.push([c.id, c.selected]);
      if (sel.length) setSelected(applySelection(sel));
    },
    [setSelected],
  );

  const onDragStart = useCallback(() => {
    dragKey.current = `drag:${++dragCounter.current}`;
  }, []);
  const onDragStop = useCallback(() => {
    dragKey.current = null;
  }, []);

  return { onNodesChange, onEdgesChange, onDragStart, onDragStop };
}
