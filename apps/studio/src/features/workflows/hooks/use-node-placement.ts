// Adding nodes to the editor's canvas: from the palette (at the canvas centre, or right of Start on an
// empty canvas) or by drag and drop, always on a free spot so a new node never covers another.
import { useCallback, type DragEvent, type Dispatch, type RefObject, type SetStateAction } from 'react';
import type { ReactFlowInstance } from '@xyflow/react';
import type { NodeType } from '../../../shared/api-types';
import {
  addNode,
  commit,
  freeSpot,
  NODE_H,
  NODE_W,
  type DraftHistory,
  type FlowEdge,
  type FlowNode,
  type XY,
} from '../graph-draft';
import { DND_TYPE } from '../components/node-palette';

export function useNodePlacement({
  readOnly,
  newStage,
  rf,
  canvasRef,
  histRef,
  setHist,
  setSelected,
  setNotice,
}: {
  readOnly: boolean;
  /** The stage a new node gets (the palette's stage picker). */
  newStage: string | null;
  rf: ReactFlowInstance<FlowNode, FlowEdge>;
  canvasRef: RefObject<HTMLDivElement | null>;
  histRef: RefObject<DraftHistory>;
  setHist: Dispatch<SetStateAction<DraftHistory>>;
  setSelected: Dispatch<SetStateAction<ReadonlySet<string>>>;
  setNotice: Dispatch<SetStateAction<string | null>>;
}) {
  const addAt = useCallback(
    (type: NodeType, pos: XY) => {
      if (readOnly) return;
      const base = histRef.current.draft;
      const spec = { type, position: freeSpot(base.nodes, pos), stage_label: newStage };
      const r = addNode(base, spec);
      setHist((h) => commit(h, h.draft === base ? r.draft : addNode(h.draft, spec).draft));
      setSelected(new Set([r.uid]));
      setNotice(null);
    },
    [histRef, newStage, readOnly, setHist, setNotice, setSelected],
  );

  const addAtCentre = useCallback(
    (type: NodeType) => {
      const rect = canvasRef.current?.getBoundingClientRect();
      const centre = rect
        ? rf.screenToFlowPosition({ x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 })
        : { x: 0, y: 0 };
      const d = histRef.current.draft;
      if (d.nodes.length === 0) {
        // The first node goes right of Start (which sits in the centre of an empty canvas).
        addAt(type, { x: Math.round(d.start.x + 220), y: Math.round(d.start.y - 16) });
        requestAnimationFrame(() =>
          requestAnimationFrame(() => void rf.fitView({ padding: 0.3, maxZoom: 1.1, duration: 200 })),
        );
        return;
      }
      addAt(type, { x: Math.round(centre.x - NODE_W / 2), y: Math.round(centre.y - NODE_H / 2) });
    },
    [addAt, canvasRef, histRef, rf],
  );

  const onDragOver = useCallback((e: DragEvent) => {
    if (e.dataTransfer.types.includes(DND_TYPE)) {
      e.preventDefault();
      e.dataTransfer.dropEffect = 'move';
    }
  }, []);

  const onDrop = useCallback(
    (e: DragEvent) => {
      const type = e.dataTransfer.getData(DND_TYPE) as NodeType;
      if (!type) return;
      e.preventDefault();
      const p = rf.screenToFlowPosition({ x: e.clientX, y: e.clientY });
      addAt(type, { x: Math.round(p.x - NODE_W / 2), y: Math.round(p.y - NODE_H / 2) });
    },
    [addAt, rf],
  );

  return { addAtCentre, onDragOver, onDrop };
}
