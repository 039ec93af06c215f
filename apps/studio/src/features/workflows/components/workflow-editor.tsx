// The workflow canvas: one draft (with undo history) per open editor, rendered with React Flow.
// Every edit is a pure function from graph-draft.ts; this component only wires events to them,
// validates the draft live with the shared validateGraph, and saves with optimistic-concurrency.
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import { Link, useBlocker, useNavigate } from 'react-router-dom';
import {
  Background,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  ViewportPortal,
  useReactFlow,
  type Connection,
  type EdgeChange,
  type NodeChange,
  type OnDelete,
} from '@xyflow/react';
import { autoLayout, validateGraph } from '@service/workflow-graph';
import type { Agent, NodeType, Workflow, WorkflowGraph } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { Badge, SystemBadge } from '../../../shared/components/badge';
import { ConfirmDialog } from '../../../shared/components/confirm-dialog';
import { Icon } from '../../../shared/components/icon';
import { useToast } from '../../../shared/components/toast';
import { errorMessage, isApiError } from '../../../shared/http';
import {
  START_ID,
  addNode,
  applyLayout,
  commit,
  connect,
  createFlowCache,
  copySelection,
  deleteElements,
  draftFromGraph,
  pasteClip,
  freeSpot,
  NODE_H,
  NODE_W,
  stageLanes,
  draftToGraph,
  historyFrom,
  isDirty,
  mapProblems,
  mergeProblemMaps,
  moveEdge,
  moveNodes,
  redo,
  setArtifact,
  toFlowEdges,
  toFlowNodes,
  openingFocus,
  undo,
  updateEdge,
  updateNode,
  type Clip,
  type DraftHistory,
  type FlowEdge,
  type FlowNode,
  type FlowView,
  type GraphDraft,
  type NodePatch,
  type ProblemMap,
  type XY,
} from '../graph-draft';
import { useCloneWorkflow, useSaveGraph } from '../hooks/use-workflows';
import { edgeTypes, nodeTypes } from './flow-nodes';
import { DND_TYPE, NodePalette } from './node-palette';
import { PropertyPanel } from './property-panel';
import { StageLegend } from './stage-legend';

type Banner =
  | { kind: 'conflict' }
  | { kind: 'invalid'; message: string }
  | { kind: 'blocked'; count: number }
  | { kind: 'error'; message: string };

/** The opening view never zooms out further than this (issue 13: 18 % could not be read). */
const OPENING_MIN_ZOOM = 0.6;

/** A panel's open/closed state, remembered in localStorage. */
function usePanel(key: string, initial: boolean): [boolean, () => void] {
  const [open, setOpen] = useState<boolean>(() => {
    try {
      const v = localStorage.getItem(`studio.editor.${key}`);
      return v === null ? initial : v === '1';
    } catch {
      return initial;
    }
  });
  const toggle = useCallback(() => {
    setOpen((o) => {
      try {
        localStorage.setItem(`studio.editor.${key}`, o ? '0' : '1');
      } catch {
        // storage unavailable: the choice lasts for this page only
      }
      return !o;
    });
  }, [key]);
  return [open, toggle];
}

function isTextTarget(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

export function WorkflowEditor({
  workflow,
  graph,
  agents,
  onReload,
}: {
  workflow: Workflow;
  graph: WorkflowGraph;
  agents: readonly Agent[];
  onReload: () => Promise<void>;
}) {
  const readOnly = workflow.is_system;
  const stages = workflow.stages;
  const rf = useReactFlow<FlowNode, FlowEdge>();
  const toast = useToast();
  const navigate = useNavigate();
  const saveGraph = useSaveGraph(workflow.id);
  const cloneWorkflow = useCloneWorkflow();

  const [hist, setHist] = useState<DraftHistory>(() => historyFrom(draftFromGraph(graph)));
  const [version, setVersion] = useState(graph.version);
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());
  const [measured, setMeasured] = useState<ReadonlyMap<string, { width: number; height: number }>>(() => new Map());
  const [serverProblems, setServerProblems] = useState<ProblemMap | null>(null);
  const [banner, setBanner] = useState<Banner | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [newStage, setNewStage] = useState<string | null>(stages[0] ?? null);
  const [showProblems, setShowProblems] = useState(false);
  const [reloading, setReloading] = useState(false);
  const [paletteOpen, togglePalette] = usePanel('palette', true);
  const [propsOpen, toggleProps] = usePanel('properties', true);
  const [mapOpen, toggleMap] = usePanel('minimap', false);

  const histRef = useRef(hist);
  histRef.current = hist;
  const selectedRef = useRef(selected);
  selectedRef.current = selected;
  /** Ctrl/⌘+C keeps the copied nodes here (per editor) for Ctrl/⌘+V; Ctrl/⌘+D duplicates at once. */
  const clipboard = useRef<Clip | null>(null);
  const cache = useRef(createFlowCache());
  const dragKey = useRef<string | null>(null);
  const dragCounter = useRef(0);
  const canvasRef = useRef<HTMLDivElement>(null);

  const draft = hist.draft;
  const dirty = isDirty(hist);

  // ------------------------------------------------------------ derived data
  const agentById = useMemo(() => new Map(agents.map((a) => [a.id, a])), [agents]);
  const agentName = useCallback((id: number | null) => (id === null ? null : (agentById.get(id)?.name ?? `Agent #${id}`)), [agentById]);
  const validationCtx = useMemo(() => ({ stages, isAgentVisible: (id: number) => agentById.has(id) }), [stages, agentById]);

  // Validation trails the draft (deferred) so dragging 500 nodes stays smooth.
  const deferredDraft = useDeferredValue(draft);
  const clientProblems = useMemo(() => {
    const r = validateGraph(draftToGraph(deferredDraft), validationCtx);
    return mapProblems(deferredDraft, r.errors, r.warnings);
  }, [deferredDraft, validationCtx]);
  const problems = useMemo(() => mergeProblemMaps(clientProblems, serverProblems), [clientProblems, serverProblems]);

  const view: FlowView = useMemo(
    () => ({ stages, agentName, selected, problems, readOnly, measured }),
    [stages, agentName, selected, problems, readOnly, measured],
  );
  // Decided once, from the graph as loaded: later edits never move the view on their own.
  const opening = useMemo(() => openingFocus(hist.draft, stages), []);
  const lanes = useMemo(() => stageLanes(draft.nodes, stages), [draft.nodes, stages]);
  const nodes = useMemo(() => toFlowNodes(draft, view, cache.current), [draft, view]);
  const edges = useMemo(() => toFlowEdges(draft, view, cache.current), [draft, view]);
  const stageCounts = useMemo(() => {
    const m = new Map<string | null, number>();
    for (const n of draft.nodes) m.set(n.stage_label, (m.get(n.stage_label) ?? 0) + 1);
    return m;
  }, [draft.nodes]);

  // ------------------------------------------------------------ edits
  const apply = useCallback((fn: (d: GraphDraft) => GraphDraft, key: string | null = null) => {
    setHist((h) => commit(h, fn(h.draft), key));
    setNotice(null);
  }, []);

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
      if (sel.length) {
        setSelected((s) => {
          const next = new Set(s);
          for (const [id, on] of sel) {
            if (on) next.add(id);
            else next.delete(id);
          }
          return next;
        });
      }
    },
    [readOnly],
  );

  const onEdgesChange = useCallback((changes: EdgeChange<FlowEdge>[]) => {
    const sel: [string, boolean][] = [];
    for (const c of changes) if (c.type === 'select') sel.push([c.id, c.selected]);
    if (sel.length) {
      setSelected((s) => {
        const next = new Set(s);
        for (const [id, on] of sel) {
          if (on) next.add(id);
          else next.delete(id);
        }
        return next;
      });
    }
  }, []);

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
    [apply, readOnly],
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
    [readOnly],
  );

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
    [newStage, readOnly],
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
        requestAnimationFrame(() => requestAnimationFrame(() => void rf.fitView({ padding: 0.3, maxZoom: 1.1, duration: 200 })));
        return;
      }
      addAt(type, { x: Math.round(centre.x - NODE_W / 2), y: Math.round(centre.y - NODE_H / 2) });
    },
    [addAt, rf],
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

  const onNodeChange = useCallback(
    (uid: string, patch: NodePatch, field: string) => apply((d) => updateNode(d, uid, patch), `${field}:${uid}`),
    [apply],
  );
  const onArtifactChange = useCallback((uid: string, value: string) => apply((d) => setArtifact(d, uid, value), `artifact:${uid}`), [apply]);
  const onEdgeChange = useCallback((id: string, condition: string | null) => apply((d) => updateEdge(d, id, { condition }), `condition:${id}`), [apply]);
  const onMoveEdge = useCallback((id: string, delta: -1 | 1) => apply((d) => moveEdge(d, id, delta)), [apply]);

  const doUndo = useCallback(() => setHist((h) => undo(h)), []);
  const doRedo = useCallback(() => setHist((h) => redo(h)), []);

  const fit = useCallback(() => void rf.fitView({ padding: 0.15, duration: 250 }), [rf]);

  const doLayout = useCallback(() => {
    if (readOnly) return;
    apply((d) => applyLayout(d, autoLayout(draftToGraph(d), stages)));
    requestAnimationFrame(() => requestAnimationFrame(fit));
  }, [apply, fit, readOnly, stages]);

  const focusElement = useCallback(
    (uid: string) => {
      const n = histRef.current.draft.nodes.find((x) => x.uid === uid);
      if (!n) return;
      setSelected(new Set([uid]));
      void rf.setCenter(n.position_x + NODE_W / 2, n.position_y + NODE_H / 2, { zoom: Math.max(rf.getZoom(), 0.9), duration: 300 });
    },
    [rf],
  );

  // ------------------------------------------------------------ save
  const save = useCallback(() => {
    if (readOnly || saveGraph.isPending) return;
    const sent = histRef.current.draft;
    const payload = draftToGraph(sent);
    const check = validateGraph(payload, validationCtx);
    if (check.errors.length > 0) {
      setBanner({ kind: 'blocked', count: check.errors.length });
      setShowProblems(true);
      return;
    }
    setBanner(null);
    saveGraph.mutate(
      { ...payload, version },
      {
        onSuccess: (saved) => {
          setVersion(saved.version);
          setHist((h) => ({ ...h, saved: sent, lastKey: null }));
          setServerProblems(saved.warnings && saved.warnings.length ? mapProblems(sent, [], saved.warnings) : null);
          toast.show(`Saved — version ${saved.version}`);
        },
        onError: (err) => {
          if (isApiError(err) && err.status === 409) {
            setBanner({ kind: 'conflict' });
          } else if (isApiError(err) && err.status === 400) {
            setServerProblems(mapProblems(sent, err.errors, []));
            setBanner({ kind: 'invalid', message: err.detail || 'The server rejected the graph.' });
            setShowProblems(true);
          } else {
            setBanner({ kind: 'error', message: errorMessage(err) });
          }
        },
      },
    );
  }, [readOnly, saveGraph, toast, validationCtx, version]);

  const reload = useCallback(async () => {
    setReloading(true);
    try {
      await onReload();
    } finally {
      setReloading(false);
    }
  }, [onReload]);

  const cloneToEdit = useCallback(() => {
    cloneWorkflow.mutate(
      { id: workflow.id },
      {
        onSuccess: (c) => {
          toast.show(`Cloned as “${c.name}”`);
          void navigate(`/studio/workflows/${c.id}`);
        },
        onError: (e) => toast.show(`Clone failed: ${errorMessage(e)}`, 'error'),
      },
    );
  }, [cloneWorkflow, navigate, toast, workflow.id]);

  // ------------------------------------------------------------ keyboard, leave guards
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (!mod) return;
      const k = e.key.toLowerCase();
      if (k === 's') {
        e.preventDefault();
        save();
        return;
      }
      if (isTextTarget(e.target)) return;
      if (k === 'a') {
        // select every node on the canvas, not the page's text
        e.preventDefault();
        setSelected(new Set(histRef.current.draft.nodes.map((n) => n.uid)));
        return;
      }
      if (k === 'c') {
        const clip = copySelection(histRef.current.draft, selectedRef.current);
        if (clip) {
          e.preventDefault();
          clipboard.current = clip;
          setNotice(null);
        }
        return;
      }
      if (readOnly) return;
      if (k === 'v' || k === 'd') {
        const clip = k === 'd' ? copySelection(histRef.current.draft, selectedRef.current) : clipboard.current;
        if (!clip) return;
        e.preventDefault();
        const r = pasteClip(histRef.current.draft, clip);
        setHist((h) => commit(h, r.draft));
        setSelected(new Set(r.uids));
        return;
      }
      if (k === 'z' && !e.shiftKey) {
        e.preventDefault();
        doUndo();
      } else if ((k === 'z' && e.shiftKey) || k === 'y') {
        e.preventDefault();
        doRedo();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [doRedo, doUndo, readOnly, save]);

  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);

  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname);

  // ------------------------------------------------------------ render
  const problemEntries = useMemo(() => {
    if (!problems) return [];
    const list: { key: string; kind: 'error' | 'warning'; where: string; message: string; uid?: string }[] = [];
    for (const n of draft.nodes) {
      const p = problems.nodes.get(n.uid);
      if (!p) continue;
      p.errors.forEach((m, i) => list.push({ key: `ne:${n.uid}:${i}`, kind: 'error', where: n.node_key, message: m, uid: n.uid }));
      p.warnings.forEach((m, i) => list.push({ key: `nw:${n.uid}:${i}`, kind: 'warning', where: n.node_key, message: m, uid: n.uid }));
    }
    const keyOf = (id: string) => (id === START_ID ? 'start' : (draft.nodes.find((n) => n.uid === id)?.node_key ?? id));
    for (const e of draft.edges) {
      const p = problems.edges.get(e.id);
      if (!p) continue;
      p.errors.forEach((m, i) => list.push({ key: `ee:${e.id}:${i}`, kind: 'error', where: `${keyOf(e.source)} → ${keyOf(e.target)}`, message: m }));
    }
    problems.general.forEach((g, i) => list.push({ key: `g:${i}`, kind: g.kind, where: g.field, message: g.message }));
    return list.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'error' ? -1 : 1));
  }, [problems, draft.nodes, draft.edges]);
  const errorCount = problemEntries.filter((p) => p.kind === 'error').length;
  const warningCount = problemEntries.length - errorCount;

  return (
    <div className="editor" data-testid="workflow-editor">
      <header className="editor-toolbar">
        <div className="editor-title">
          <Link to="/studio/workflows" className="btn-link small" aria-label="Back to workflows">
            ← Back
          </Link>
          <h1>
            {workflow.name} {readOnly && <SystemBadge />}
          </h1>
          <Badge kind="info">{workflow.domain}</Badge>
          <span className="muted small" data-testid="graph-version">
            v{version}
          </span>
          {!readOnly && (
            <span className={`dirty-indicator${dirty ? ' is-dirty' : ''}`} data-testid="dirty-indicator" data-dirty={dirty ? 'true' : 'false'} aria-live="polite">
              {dirty ? '● Unsaved' : 'Saved'}
            </span>
          )}
        </div>
        <div className="editor-actions" role="toolbar" aria-label="Editor actions">
          <button
            type="button"
            className={`btn btn-small problems-toggle${errorCount ? ' has-errors' : warningCount ? ' has-warnings' : ''}`}
            onClick={() => setShowProblems((v) => !v)}
            aria-expanded={showProblems}
            aria-label={`${errorCount} errors, ${warningCount} warnings`}
            title="Show problems"
            data-testid="problems-toggle"
          >
            {errorCount} {errorCount === 1 ? 'error' : 'errors'} · {warningCount} {warningCount === 1 ? 'warning' : 'warnings'}
          </button>
          {!readOnly && (
            <>
              <button type="button" className="btn btn-small" onClick={doUndo} disabled={hist.past.length === 0} aria-label="Undo" title="Undo (Ctrl/⌘+Z)" data-testid="undo">
                <Icon name="undo" size={14} />
              </button>
              <button type="button" className="btn btn-small" onClick={doRedo} disabled={hist.future.length === 0} aria-label="Redo" title="Redo (Ctrl/⌘+Shift+Z)" data-testid="redo">
                <Icon name="redo" size={14} />
              </button>
            </>
          )}
          {!readOnly && (
            <button type="button" className="btn btn-small" onClick={togglePalette} aria-pressed={paletteOpen} data-testid="toggle-palette" title="Show or hide the node palette">
              Palette
            </button>
          )}
          <button type="button" className="btn btn-small" onClick={toggleProps} aria-pressed={propsOpen} data-testid="toggle-properties" title="Show or hide the properties panel">
            Properties
          </button>
          <button type="button" className="btn btn-small" onClick={toggleMap} aria-pressed={mapOpen} data-testid="toggle-minimap" title="Show or hide the mini map">
            Map
          </button>
          <button type="button" className="btn btn-small" onClick={fit} data-testid="fit-view">
            Fit view
          </button>
          {!readOnly && (
            <button type="button" className="btn btn-small" onClick={doLayout} data-testid="auto-layout">
              Auto layout
            </button>
          )}
          <Link className="btn btn-small" to={`/studio/workflows/${workflow.id}/run`} data-testid="editor-run">
            Run ▸
          </Link>
          {readOnly ? (
            <button type="button" className="btn btn-primary" onClick={cloneToEdit} disabled={cloneWorkflow.isPending} data-testid="clone-to-edit">
              {cloneWorkflow.isPending ? 'Cloning…' : 'Clone to edit'}
            </button>
          ) : (
            <button type="button" className="btn btn-primary" onClick={save} disabled={saveGraph.isPending} data-testid="save-graph" title="Save (Ctrl/⌘+S)">
              {saveGraph.isPending ? 'Saving…' : 'Save'}
            </button>
          )}
        </div>
      </header>

      <div className="editor-banners">
        {readOnly && (
          <Alert kind="info" testId="readonly-banner">
            This is a system workflow: it is read-only. Clone it to make your own editable copy.
          </Alert>
        )}
        {banner?.kind === 'conflict' && (
          <Alert
            kind="warning"
            testId="conflict-banner"
            title="This pack was changed elsewhere"
            action={
              <button type="button" className="btn btn-small btn-primary" onClick={() => void reload()} disabled={reloading} data-testid="conflict-reload">
                {reloading ? 'Reloading…' : 'Reload'}
              </button>
            }
          >
            Someone saved a newer version of this graph. Reload to get it (your unsaved changes here will be lost).
          </Alert>
        )}
        {banner?.kind === 'invalid' && (
          <Alert kind="error" testId="save-error" title="Not saved" onDismiss={() => setBanner(null)}>
            {banner.message}
            <div className="small">The problems are marked on the canvas and listed under the problems button.</div>
          </Alert>
        )}
        {banner?.kind === 'blocked' && (
          <Alert kind="error" testId="validation-banner" title="Not saved" onDismiss={() => setBanner(null)}>
            Fix {banner.count} {banner.count === 1 ? 'error' : 'errors'} first; they are marked on the canvas.
          </Alert>
        )}
        {banner?.kind === 'error' && (
          <Alert kind="error" testId="save-error" title="Save failed" onDismiss={() => setBanner(null)}>
            {banner.message}
          </Alert>
        )}
        {notice && (
          <Alert kind="warning" testId="editor-notice" onDismiss={() => setNotice(null)}>
            {notice}
          </Alert>
        )}
      </div>

      <div
        className="editor-body"
        style={{ gridTemplateColumns: `${!readOnly && paletteOpen ? 'var(--palette-w) ' : ''}minmax(0, 1fr)${propsOpen ? ' var(--props-w)' : ''}` }}
        data-testid="editor-body"
      >
        {!readOnly && paletteOpen && <NodePalette onAdd={addAtCentre} disabled={readOnly} stages={stages} stage={newStage} onStageChange={setNewStage} />}
        <div className="canvas-wrap">
          {showProblems && (
            <div className="problems-popover" role="region" aria-label="Problems" data-testid="problems-list">
              <div className="problems-head">
                <strong>Problems</strong>
                <button type="button" className="btn-icon" aria-label="Close problems" onClick={() => setShowProblems(false)}>
                  ×
                </button>
              </div>
              {problemEntries.length === 0 ? (
                <p className="muted small">No problems found.</p>
              ) : (
                <ul>
                  {problemEntries.slice(0, 100).map((p) => (
                    <li key={p.key} className={`problem problem-${p.kind}`}>
                      {p.uid ? (
                        <button type="button" className="btn-link" onClick={() => focusElement(p.uid!)}>
                          {p.where}
                        </button>
                      ) : (
                        <code>{p.where}</code>
                      )}
                      : {p.message}
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
          <div className="canvas" ref={canvasRef} onDragOver={onDragOver} onDrop={onDrop} data-testid="canvas">
            <ReactFlow<FlowNode, FlowEdge>
              nodes={nodes}
              edges={edges}
              nodeTypes={nodeTypes}
              edgeTypes={edgeTypes}
              onNodesChange={onNodesChange}
              onEdgesChange={onEdgesChange}
              onConnect={onConnect}
              onDelete={onDelete}
              onNodeDragStart={() => {
                dragKey.current = `drag:${++dragCounter.current}`;
              }}
              onNodeDragStop={() => {
                dragKey.current = null;
              }}
              onSelectionDragStart={() => {
                dragKey.current = `drag:${++dragCounter.current}`;
              }}
              onSelectionDragStop={() => {
                dragKey.current = null;
              }}
              isValidConnection={(c) => c.target !== START_ID && c.source !== c.target}
              deleteKeyCode={readOnly ? null : ['Delete', 'Backspace']}
              nodesDraggable={!readOnly}
              nodesConnectable={!readOnly}
              elementsSelectable
              onlyRenderVisibleElements
              fitView
              fitViewOptions={opening ? { padding: 0.2, maxZoom: 1.2, minZoom: OPENING_MIN_ZOOM, nodes: opening } : { padding: 0.2, maxZoom: 1.2, minZoom: OPENING_MIN_ZOOM }}
              minZoom={0.05}
              maxZoom={2}
              defaultEdgeOptions={{ markerEnd: { type: MarkerType.ArrowClosed, width: 18, height: 18 } }}
              aria-label="Workflow graph"
              colorMode="system"
            >
              <Background gap={20} size={1} />
              <ViewportPortal>
                <div className="stage-lanes" aria-hidden="true">
                  {lanes.map((l) => (
                    <div
                      key={l.stage}
                      className="stage-lane"
                      data-testid="stage-lane"
                      data-stage={l.stage}
                      style={{ transform: `translate(${l.x}px, ${l.y}px)`, width: l.width, height: l.height, ['--stage-color' as string]: l.color }}
                    >
                      <span className="stage-lane-label">{l.stage}</span>
                    </div>
                  ))}
                </div>
              </ViewportPortal>
              <Controls showInteractive={false} />
              {mapOpen && (
                <MiniMap pannable zoomable position="top-right" nodeColor={(n) => (n.type === 'step' ? (n.data as { color: string }).color : '#1e293b')} ariaLabel="Mini map" />
              )}
            </ReactFlow>
            {draft.nodes.length === 0 && (
              <div className="canvas-empty" data-testid="canvas-empty">
                <strong>This workflow has no nodes yet</strong>
                <span>{readOnly ? 'Nothing to show.' : 'Drag an Agent from the palette, then connect Start to it.'}</span>
              </div>
            )}
          </div>
          <StageLegend stages={stages} counts={stageCounts} />
        </div>
        {propsOpen && <PropertyPanel
          workflow={workflow}
          draft={draft}
          selected={selected}
          agents={agents}
          readOnly={readOnly}
          nodeProblems={(uid) => problems?.nodes.get(uid)}
          edgeProblems={(id) => problems?.edges.get(id)}
          onNodeChange={onNodeChange}
          onArtifactChange={onArtifactChange}
          onEdgeChange={onEdgeChange}
          onMoveEdge={onMoveEdge}
          onDelete={removeElements}
        />}
      </div>

      <ConfirmDialog
        open={blocker.state === 'blocked'}
        title="Leave without saving?"
        confirmLabel="Discard changes"
        onCancel={() => blocker.reset?.()}
        onConfirm={() => blocker.proceed?.()}
      >
        <p>Your changes to this graph have not been saved.</p>
      </ConfirmDialog>
    </div>
  );
}
