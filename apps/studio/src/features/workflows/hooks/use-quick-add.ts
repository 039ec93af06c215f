// Quick add's state and edits: opened by Tab (add after the selected node, onto the selected edge, or
// on its own) or "c" (connect the selected node), it offers the node kinds — an agent node per visible
// agent — or the other nodes, and applies the pick as one undoable edit (draft-insert.ts).
import { useCallback, useEffect, useMemo, useState, type Dispatch, type RefObject, type SetStateAction } from 'react';
import type { Agent } from '../../../shared/api-types';
import { agentLabels } from '../agent-label';
import type { QuickOption } from '../components/quick-add';
import {
  addAfter,
  commit,
  connect,
  freeSpot,
  insertOnEdge,
  NODE_H,
  NODE_W,
  START_ID,
  type DraftHistory,
  type DraftNode,
  type NewNode,
  type XY,
} from '../graph-draft';

export type QuickMode = { kind: 'add'; after: string | null; edge: string | null } | { kind: 'connect'; from: string };

function isTextTarget(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  return !!el?.tagName && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT', 'BUTTON', 'A'].includes(el.tagName));
}

export function useQuickAdd({
  readOnly,
  agents,
  nodes,
  newStage,
  rf,
  histRef,
  selectedRef,
  canvasRef,
  setHist,
  setSelected,
  setNotice,
}: {
  readOnly: boolean;
  agents: readonly Agent[];
  /** the draft's nodes (the ones "Connect to…" offers) */
  nodes: readonly DraftNode[];
  newStage: string | null;
  /** to find the canvas centre in flow coordinates (where a node goes when nothing is selected) */
  rf: { screenToFlowPosition: (p: XY) => XY };
  histRef: RefObject<DraftHistory>;
  selectedRef: RefObject<ReadonlySet<string>>;
  canvasRef: RefObject<HTMLDivElement | null>;
  setHist: Dispatch<SetStateAction<DraftHistory>>;
  setSelected: Dispatch<SetStateAction<ReadonlySet<string>>>;
  setNotice: Dispatch<SetStateAction<string | null>>;
}) {
  const [mode, setMode] = useState<QuickMode | null>(null);
  const centre = useCallback((): XY => {
    const rect = canvasRef.current?.getBoundingClientRect();
    if (!rect) return { x: 0, y: 0 };
    const p = rf.screenToFlowPosition({ x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 });
    return { x: Math.round(p.x - NODE_W / 2), y: Math.round(p.y - NODE_H / 2) };
  }, [canvasRef, rf]);
  /** what the last pick did, for a polite live region (screen readers hear "Connected a → b.") */
  const [announcement, setAnnouncement] = useState('');

  /** Opens for the current selection: one node → after it; one edge → onto it; else on its own. */
  const openAdd = useCallback(() => {
    const d = histRef.current.draft;
    const sel = [...selectedRef.current];
    const one = sel.length === 1 ? sel[0] : null;
    const node = one === START_ID || d.nodes.some((n) => n.uid === one) ? one : null;
    const edge = d.edges.find((e) => e.id === one);
    setMode({ kind: 'add', after: node, edge: edge?.id ?? null });
  }, [histRef, selectedRef]);

  const openConnect = useCallback(() => {
    const sel = [...selectedRef.current];
    const d = histRef.current.draft;
    if (sel.length === 1 && (sel[0] === START_ID || d.nodes.some((n) => n.uid === sel[0])))
      setMode({ kind: 'connect', from: sel[0] });
  }, [histRef, selectedRef]);

  const close = useCallback(() => {
    setMode(null);
    // back to the canvas, so the next Tab or "c" works at once
    canvasRef.current?.querySelector<HTMLElement>('.react-flow__pane')?.focus?.();
  }, [canvasRef]);

  useEffect(() => {
    if (readOnly) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || isTextTarget(e.target)) return;
      const onCanvas = e.target === document.body || !!canvasRef.current?.contains(e.target as Node);
      if (!onCanvas || document.querySelector('dialog[open]')) return;
      if (e.key === 'Tab' && !e.shiftKey) {
        e.preventDefault();
        openAdd();
      } else if (e.key === 'c' && !e.shiftKey) {
        e.preventDefault();
        openConnect();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [canvasRef, openAdd, openConnect, readOnly]);

  const labels = useMemo(() => agentLabels(agents), [agents]);
  const options: QuickOption[] = useMemo(() => {
    if (!mode) return [];
    if (mode.kind === 'connect')
      return nodes
        .filter((n) => n.uid !== mode.from)
        .map((n) => ({
          key: n.uid,
          label: n.node_key,
          hint: `${n.type}${n.stage_label ? ` · ${n.stage_label}` : ''}`,
        }));
    return [
      ...agents.map((a) => ({ key: `agent:${a.id}`, label: labels.get(a.id) ?? a.name, hint: 'agent' })),
      { key: 'agent:', label: 'Agent (choose it later)', hint: 'agent' },
      { key: 'gate', label: 'Gate', hint: 'waits for a person’s approval' },
      { key: 'branch', label: 'Branch', hint: 'takes the first edge whose condition holds' },
    ];
  }, [agents, nodes, labels, mode]);

  const pick = useCallback(
    (key: string) => {
      if (!mode) return;
      const d = histRef.current.draft;
      const keyOf = (uid: string) =>
        uid === START_ID ? 'start' : (d.nodes.find((n) => n.uid === uid)?.node_key ?? uid);
      if (mode.kind === 'connect') {
        const r = connect(d, mode.from, key);
        if (r.error !== null) setNotice(r.error);
        else {
          setHist((h) => commit(h, r.draft));
          setSelected(new Set([r.edgeId]));
          setAnnouncement(`Connected ${keyOf(mode.from)} → ${keyOf(key)}.`);
        }
        setMode(null);
        return;
      }
      const [type, agent] = key.split(':');
      const posOf = (uid: string): XY | null => {
        if (uid === START_ID) return d.start;
        const n = d.nodes.find((x) => x.uid === uid);
        return n ? { x: n.position_x, y: n.position_y } : null;
      };
      const edge = mode.edge ? d.edges.find((e) => e.id === mode.edge) : undefined;
      const from = mode.after ? posOf(mode.after) : null;
      let at: XY;
      if (edge) {
        const a = posOf(edge.source) ?? centre();
        const b = posOf(edge.target) ?? centre();
        at = { x: Math.round((a.x + b.x) / 2), y: Math.round((a.y + b.y) / 2 + NODE_H) };
      } else if (from) at = { x: from.x + NODE_W + 80, y: from.y };
      else at = centre();
      const after = mode.after ? d.nodes.find((n) => n.uid === mode.after) : undefined;
      const spec: NewNode = {
        type: type as NewNode['type'],
        position: freeSpot(d.nodes, at),
        stage_label: after?.stage_label ?? newStage,
        agent_id: agent ? Number(agent) : null,
      };
      const r = edge ? insertOnEdge(d, edge.id, spec) : addAfter(d, mode.after, spec);
      if (r.uid) {
        setHist((h) => commit(h, r.draft));
        setSelected(new Set([r.uid]));
        const added = r.draft.nodes.find((n) => n.uid === r.uid)!.node_key;
        setAnnouncement(
          edge
            ? `Inserted ${added} between ${keyOf(edge.source)} and ${keyOf(edge.target)}.`
            : mode.after
              ? `Added ${added} after ${keyOf(mode.after)}.`
              : `Added ${added}.`,
        );
      }
      setMode(null);
    },
    [centre, histRef, mode, newStage, setHist, setNotice, setSelected],
  );

  return { mode, options, announcement, openAdd, openConnect, close, pick };
}
