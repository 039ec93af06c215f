// The workflow canvas: one draft (with undo history) per open editor, rendered with React Flow.
// Every edit is a pure function from graph-draft.ts; this component only wires events to them,
// validates the draft live with the shared validateGraph, and saves with optimistic-concurrency.
// Its toolbar, banners and problems list are components beside it; canvas changes, node placement,
// saving and keyboard shortcuts are hooks in ../hooks/.
import { useCallback, useDeferredValue, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Background, Controls, MarkerType, MiniMap, ReactFlow, useReactFlow } from '@xyflow/react';
import { validateGraph } from '@service/workflow-graph';
import type { Agent, Workflow, WorkflowGraph } from '../../../shared/api-types';
import { ConfirmDialog } from '../../../shared/components/confirm-dialog';
import {
  START_ID,
  createFlowCache,
  draftFromGraph,
  draftToGraph,
  historyFrom,
  isDirty,
  listProblems,
  mapProblems,
  mergeProblemMaps,
  NODE_H,
  NODE_W,
  openingFocus,
  stageLanes,
  toFlowEdges,
  toFlowNodes,
  type Clip,
  type DraftHistory,
  type FlowEdge,
  type FlowNode,
  type FlowView,
} from '../graph-draft';
import { useCanvasChanges } from '../hooks/use-canvas-changes';
import { useDraftEdits } from '../hooks/use-draft-edits';
import { useEditorShortcuts, useLeaveGuard } from '../hooks/use-editor-shortcuts';
import { useGraphSave } from '../hooks/use-graph-save';
import { useNodePlacement } from '../hooks/use-node-placement';
import { usePanel } from '../hooks/use-panel';
import { useQuickAdd } from '../hooks/use-quick-add';
import { QuickAdd, QuickAddControls } from './quick-add';
import { EditorBanners } from './editor-banners';
import { EditorToolbar } from './editor-toolbar';
import { edgeTypes, nodeTypes } from './flow-nodes';
import { NodePalette } from './node-palette';
import { ProblemsPopover } from './problems-popover';
import { PropertyPanel } from './property-panel';
import { StageLanesLayer } from './stage-lanes-layer';
import { StageLegend } from './stage-legend';

/** The opening view never zooms out further than this (issue 13: 18 % could not be read). */
const OPENING_MIN_ZOOM = 0.6;

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

  const [hist, setHist] = useState<DraftHistory>(() => historyFrom(draftFromGraph(graph)));
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());
  const [measured, setMeasured] = useState<ReadonlyMap<string, { width: number; height: number }>>(() => new Map());
  const [notice, setNotice] = useState<string | null>(null);
  const [newStage, setNewStage] = useState<string | null>(stages[0] ?? null);
  const [showProblems, setShowProblems] = useState(false);
  const palette = usePanel('palette', true);
  const properties = usePanel('properties', true);
  const minimap = usePanel('minimap', false);
  const [paletteOpen] = palette;
  const [propsOpen] = properties;
  const [mapOpen] = minimap;

  // Latest values for the event handlers, written after each render (before paint), never during one.
  const histRef = useRef(hist);
  const selectedRef = useRef(selected);
  useLayoutEffect(() => {
    histRef.current = hist;
    selectedRef.current = selected;
  }, [hist, selected]);
  const clipboard = useRef<Clip | null>(null);
  // one cache per editor for its lifetime (state, not a ref: the render reads it)
  const [cache] = useState(createFlowCache);
  const canvasRef = useRef<HTMLDivElement>(null);

  const draft = hist.draft;
  const dirty = isDirty(hist);

  // ------------------------------------------------------------ derived data
  const agentById = useMemo(() => new Map(agents.map((a) => [a.id, a])), [agents]);
  const agentName = useCallback(
    (id: number | null) => (id === null ? null : (agentById.get(id)?.name ?? `Agent #${id}`)),
    [agentById],
  );
  const validationCtx = useMemo(
    () => ({ stages, isAgentVisible: (id: number) => agentById.has(id) }),
    [stages, agentById],
  );

  // ------------------------------------------------------------ save (version, server problems, banner)
  const { save, saving, version, serverProblems, banner, setBanner } = useGraphSave({
    workflowId: workflow.id,
    loadedVersion: graph.version,
    readOnly,
    validationCtx,
    histRef,
    setHist,
    setShowProblems,
  });

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
  const [opening] = useState(() => openingFocus(hist.draft, stages));
  const lanes = useMemo(() => stageLanes(draft.nodes, stages), [draft.nodes, stages]);
  const nodes = useMemo(() => toFlowNodes(draft, view, cache), [draft, view, cache]);
  const edges = useMemo(() => toFlowEdges(draft, view, cache), [draft, view, cache]);
  const stageCounts = useMemo(() => {
    const m = new Map<string | null, number>();
    for (const n of draft.nodes) m.set(n.stage_label, (m.get(n.stage_label) ?? 0) + 1);
    return m;
  }, [draft.nodes]);

  // ------------------------------------------------------------ edits
  const fit = useCallback(() => void rf.fitView({ padding: 0.15, duration: 250 }), [rf]);
  const edits = useDraftEdits({ readOnly, stages, histRef, setHist, setSelected, setNotice, fit });
  const { onNodesChange, onEdgesChange, onDragStart, onDragStop } = useCanvasChanges({
    readOnly,
    setHist,
    setMeasured,
    setSelected,
  });
  const { addAtCentre, onDragOver, onDrop } = useNodePlacement({
    readOnly,
    newStage,
    rf,
    canvasRef,
    histRef,
    setHist,
    setSelected,
    setNotice,
  });

  const quick = useQuickAdd({
    readOnly,
    agents,
    nodes: draft.nodes,
    newStage,
    rf,
    histRef,
    selectedRef,
    canvasRef,
    setHist,
    setSelected,
    setNotice,
  });
  const single = selected.size === 1 ? [...selected][0] : null;
  const singleEdge = single !== null && draft.edges.some((e) => e.id === single);

  const focusElement = useCallback(
    (uid: string) => {
      // a node, or an edge (centred between its ends)
      const d = histRef.current.draft;
      const e = d.edges.find((x) => x.id === uid);
      const ends = (e ? [e.source, e.target] : [uid]).map((id) =>
        id === START_ID ? { position_x: d.start.x, position_y: d.start.y } : d.nodes.find((x) => x.uid === id),
      );
      if (ends.some((p) => !p)) return;
      const at = (k: 'position_x' | 'position_y') => ends.reduce((s, p) => s + p![k], 0) / ends.length;
      setSelected(new Set([uid]));
      void rf.setCenter(at('position_x') + NODE_W / 2, at('position_y') + NODE_H / 2, {
        zoom: Math.max(rf.getZoom(), 0.9),
        duration: 300,
      });
    },
    [rf],
  );

  // ------------------------------------------------------------ keyboard, leave guards
  useEditorShortcuts({
    readOnly,
    save,
    undo: edits.doUndo,
    redo: edits.doRedo,
    histRef,
    selectedRef,
    clipboard,
    setHist,
    setSelected,
    setNotice,
  });
  const blocker = useLeaveGuard(dirty);

  // ------------------------------------------------------------ render
  const problemEntries = useMemo(
    () => listProblems(problems, draft.nodes, draft.edges),
    [problems, draft.nodes, draft.edges],
  );
  const errorCount = problemEntries.filter((p) => p.kind === 'error').length;
  const warningCount = problemEntries.length - errorCount;

  return (
    <div className="editor" data-testid="workflow-editor">
      <EditorToolbar
        workflow={workflow}
        readOnly={readOnly}
        version={version}
        dirty={dirty}
        errorCount={errorCount}
        warningCount={warningCount}
        showProblems={showProblems}
        onToggleProblems={() => setShowProblems((v) => !v)}
        onRestored={onReload}
        canUndo={hist.past.length > 0}
        canRedo={hist.future.length > 0}
        onUndo={edits.doUndo}
        onRedo={edits.doRedo}
        palette={palette}
        properties={properties}
        minimap={minimap}
        onFit={fit}
        onLayout={edits.doLayout}
        onSave={save}
        saving={saving}
      />

      <EditorBanners
        readOnly={readOnly}
        banner={banner}
        onDismissBanner={() => setBanner(null)}
        onReload={onReload}
        notice={notice}
        onDismissNotice={() => setNotice(null)}
      />

      <div
        className="editor-body"
        style={{
          gridTemplateColumns: `${!readOnly && paletteOpen ? 'var(--palette-w) ' : ''}minmax(0, 1fr)${propsOpen ? ' var(--props-w)' : ''}`,
        }}
        data-testid="editor-body"
      >
        {!readOnly && paletteOpen && (
          <NodePalette
            onAdd={addAtCentre}
            disabled={readOnly}
            stages={stages}
            stage={newStage}
            onStageChange={setNewStage}
          />
        )}
        <div className="canvas-wrap">
          {showProblems && (
            <ProblemsPopover entries={problemEntries} onClose={() => setShowProblems(false)} onFocus={focusElement} />
          )}
          {quick.mode && (
            <QuickAdd
              title={
                quick.mode.kind === 'connect' ? 'Connect to…' : quick.mode.edge ? 'Insert on the edge' : 'Add a node'
              }
              placeholder={quick.mode.kind === 'connect' ? 'Search nodes…' : 'Search agents, gate, branch…'}
              options={quick.options}
              onPick={quick.pick}
              onClose={quick.close}
            />
          )}
          <div className="sr-only" role="status" aria-live="polite" data-testid="canvas-announcer">
            {quick.announcement}
          </div>
          <div className="canvas" ref={canvasRef} onDragOver={onDragOver} onDrop={onDrop} data-testid="canvas">
            <ReactFlow<FlowNode, FlowEdge>
              nodes={nodes}
              edges={edges}
              nodeTypes={nodeTypes}
              edgeTypes={edgeTypes}
              onNodesChange={onNodesChange}
              onEdgesChange={onEdgesChange}
              onConnect={edits.onConnect}
              onDelete={edits.onDelete}
              onNodeDragStart={onDragStart}
              onNodeDragStop={onDragStop}
              onSelectionDragStart={onDragStart}
              onSelectionDragStop={onDragStop}
              isValidConnection={(c) => c.target !== START_ID && c.source !== c.target}
              deleteKeyCode={readOnly ? null : ['Delete', 'Backspace']}
              nodesDraggable={!readOnly}
              nodesConnectable={!readOnly}
              elementsSelectable
              onlyRenderVisibleElements
              fitView
              fitViewOptions={
                opening
                  ? { padding: 0.2, maxZoom: 1.2, minZoom: OPENING_MIN_ZOOM, nodes: opening }
                  : { padding: 0.2, maxZoom: 1.2, minZoom: OPENING_MIN_ZOOM }
              }
              minZoom={0.05}
              maxZoom={2}
              defaultEdgeOptions={{ markerEnd: { type: MarkerType.ArrowClosed, width: 18, height: 18 } }}
              aria-label="Workflow graph"
              colorMode="system"
            >
              <Background gap={20} size={1} />
              <StageLanesLayer lanes={lanes} />
              <Controls showInteractive={false} />
              {!readOnly && (
                <QuickAddControls
                  selected={single}
                  isEdge={singleEdge}
                  onAdd={quick.openAdd}
                  onConnect={quick.openConnect}
                />
              )}
              {mapOpen && (
                <MiniMap
                  pannable
                  zoomable
                  position="top-right"
                  nodeColor={(n) => (n.type === 'step' ? (n.data as { color: string }).color : '#1e293b')}
                  ariaLabel="Mini map"
                />
              )}
            </ReactFlow>
            {draft.nodes.length === 0 && (
              <div className="canvas-empty" data-testid="canvas-empty">
                <strong>This workflow has no nodes yet</strong>
                <span>
                  {readOnly ? 'Nothing to show.' : 'Drag an Agent from the palette, then connect Start to it.'}
                </span>
              </div>
            )}
          </div>
          <StageLegend stages={stages} counts={stageCounts} />
        </div>
        {propsOpen && (
          <PropertyPanel
            workflow={workflow}
            draft={draft}
            selected={selected}
            agents={agents}
            readOnly={readOnly}
            nodeProblems={(uid) => problems?.nodes.get(uid)}
            edgeProblems={(id) => problems?.edges.get(id)}
            onNodeChange={edits.onNodeChange}
            onArtifactChange={edits.onArtifactChange}
            onEdgeChange={edits.onEdgeChange}
            onMoveEdge={edits.onMoveEdge}
            onDelete={edits.removeElements}
          />
        )}
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
