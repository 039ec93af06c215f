// The right-hand panel: properties of the selected node or edge (or the pack when nothing is selected).
import { useMemo } from 'react';
import { checkCondition } from '@service/workflow-graph';
import { agentLabels } from '../agent-label';
import type { Agent, NodeType, Workflow } from '../../../shared/api-types';
import { Field } from '../../../shared/components/field';
import {
  NODE_KEY_RE,
  NODE_TYPE_LIST,
  START_ID,
  START_KEY,
  stageColor,
  type DraftEdge,
  type DraftNode,
  type ElementProblems,
  type GraphDraft,
  type NodePatch,
} from '../graph-draft';

export interface PropertyPanelProps {
  workflow: Workflow;
  draft: GraphDraft;
  selected: ReadonlySet<string>;
  agents: readonly Agent[];
  readOnly: boolean;
  nodeProblems: (uid: string) => ElementProblems | undefined;
  edgeProblems: (id: string) => ElementProblems | undefined;
  onNodeChange: (uid: string, patch: NodePatch, field: string) => void;
  onArtifactChange: (uid: string, artifact: string) => void;
  onEdgeChange: (id: string, condition: string | null) => void;
  onMoveEdge: (id: string, delta: -1 | 1) => void;
  onDelete: (ids: { nodeIds: string[]; edgeIds: string[] }) => void;
}

function ProblemList({ problems }: { problems: ElementProblems | undefined }) {
  if (!problems || (problems.errors.length === 0 && problems.warnings.length === 0)) return null;
  return (
    <ul className="problem-list" data-testid="element-problems">
      {problems.errors.map((m) => (
        <li key={`e:${m}`} className="problem problem-error">
          {m}
        </li>
      ))}
      {problems.warnings.map((m) => (
        <li key={`w:${m}`} className="problem problem-warning">
          {m}
        </li>
      ))}
    </ul>
  );
}

function NodeProperties({ node, p }: { node: DraftNode; p: PropertyPanelProps }) {
  const { draft, agents, readOnly, workflow } = p;
  const keyError = !NODE_KEY_RE.test(node.node_key)
    ? 'Letters, digits, _ and -, at most 64 characters.'
    : node.node_key === START_KEY
      ? '“start” is reserved for the virtual origin.'
      : draft.nodes.some((n) => n.uid !== node.uid && n.node_key === node.node_key)
        ? 'Another node already has this key.'
        : undefined;
  const artifact = typeof node.config.artifact === 'string' ? node.config.artifact : '';
  const agentKnown = node.agent_id === null || agents.some((a) => a.id === node.agent_id);
  const labels = useMemo(() => agentLabels(agents), [agents]);
  return (
    <div className="panel-section" data-testid="node-properties">
      <h2 className="panel-title">
        <span
          className="legend-swatch"
          style={{ background: stageColor(node.stage_label, workflow.stages) }}
          aria-hidden="true"
        />{' '}
        Node
      </h2>
      <fieldset disabled={readOnly} className="fieldset-plain">
        <Field label="Node key" error={keyError}>
          <input
            value={node.node_key}
            onChange={(e) => p.onNodeChange(node.uid, { node_key: e.target.value }, 'node_key')}
            spellCheck={false}
            data-testid="prop-node-key"
          />
        </Field>
        <Field label="Type">
          <select
            value={node.type}
            onChange={(e) => p.onNodeChange(node.uid, { type: e.target.value as NodeType }, 'type')}
            data-testid="prop-node-type"
          >
            {NODE_TYPE_LIST.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </Field>
        {node.type === 'agent' && (
          <Field
            label="Agent"
            error={
              node.agent_id === null
                ? 'Pick the agent this node runs.'
                : !agentKnown
                  ? 'This agent is not visible to you.'
                  : undefined
            }
          >
            <select
              value={node.agent_id === null ? '' : String(node.agent_id)}
              onChange={(e) =>
                p.onNodeChange(node.uid, { agent_id: e.target.value ? Number(e.target.value) : null }, 'agent_id')
              }
              data-testid="prop-agent"
            >
              <option value="">— choose an agent —</option>
              {agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {labels.get(a.id)}
                </option>
              ))}
              {!agentKnown && <option value={String(node.agent_id)}>Agent #{node.agent_id}</option>}
            </select>
          </Field>
        )}
        <Field label="Stage">
          <select
            value={node.stage_label ?? ''}
            onChange={(e) => p.onNodeChange(node.uid, { stage_label: e.target.value || null }, 'stage_label')}
            data-testid="prop-stage"
          >
            <option value="">— none —</option>
            {workflow.stages.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
            {node.stage_label && !workflow.stages.includes(node.stage_label) && (
              <option value={node.stage_label}>{node.stage_label} (unknown)</option>
            )}
          </select>
        </Field>
        <Field label="Artifact" hint="Workspace path the node writes its reply to, e.g. docs/prd.md">
          <input
            value={artifact}
            onChange={(e) => p.onArtifactChange(node.uid, e.target.value)}
            placeholder="docs/…"
            spellCheck={false}
            data-testid="prop-artifact"
          />
        </Field>
      </fieldset>
      <ProblemList problems={p.nodeProblems(node.uid)} />
      {!readOnly && (
        <button
          type="button"
          className="btn btn-danger-ghost btn-block"
          onClick={() => p.onDelete({ nodeIds: [node.uid], edgeIds: [] })}
          data-testid="delete-node"
        >
          Delete node
        </button>
      )}
    </div>
  );
}

function EdgeProperties({ edge, p }: { edge: DraftEdge; p: PropertyPanelProps }) {
  const { draft, readOnly } = p;
  const keyOf = (id: string) => (id === START_ID ? START_KEY : (draft.nodes.find((n) => n.uid === id)?.node_key ?? id));
  const source = draft.nodes.find((n) => n.uid === edge.source);
  const siblings = draft.edges.filter((e) => e.source === edge.source);
  const position = siblings.indexOf(edge);
  const cond = edge.condition ?? '';
  const condError = cond.trim() ? checkCondition(cond) : null;
  return (
    <div className="panel-section" data-testid="edge-properties">
      <h2 className="panel-title">Edge</h2>
      <p className="edge-ends">
        <code>{keyOf(edge.source)}</code> → <code>{keyOf(edge.target)}</code>
      </p>
      <fieldset disabled={readOnly} className="fieldset-plain">
        <Field
          label="Condition"
          error={condError ?? undefined}
          hint={
            source?.type === 'branch'
              ? 'Empty = the default edge. The branch takes its first edge whose condition holds.'
              : 'Optional. e.g. contains(reply, "APPROVED") or exists("docs/prd.md")'
          }
        >
          <textarea
            rows={3}
            className="mono"
            value={cond}
            onChange={(e) => p.onEdgeChange(edge.id, e.target.value === '' ? null : e.target.value)}
            spellCheck={false}
            placeholder="default (no condition)"
            data-testid="prop-condition"
          />
        </Field>
        {siblings.length > 1 && (
          <div className="field">
            <span className="field-label">
              Order among edges leaving <code>{keyOf(edge.source)}</code>: {position + 1} of {siblings.length}
            </span>
            <div className="row-actions">
              <button
                type="button"
                className="btn btn-small"
                onClick={() => p.onMoveEdge(edge.id, -1)}
                disabled={position <= 0}
              >
                Earlier
              </button>
              <button
                type="button"
                className="btn btn-small"
                onClick={() => p.onMoveEdge(edge.id, 1)}
                disabled={position >= siblings.length - 1}
              >
                Later
              </button>
            </div>
          </div>
        )}
      </fieldset>
      <details className="help">
        <summary>Condition language</summary>
        <p className="small">
          Names: <code>reply</code>, <code>stage</code>, <code>files</code>. Functions: <code>contains</code>,{' '}
          <code>icontains</code>, <code>exists</code>, <code>starts_with</code>, <code>ends_with</code>,{' '}
          <code>lower</code>, <code>upper</code>, <code>len</code>, <code>matches</code>. Operators:{' '}
          <code>and or not == != &lt; &lt;= &gt; &gt;=</code>.
        </p>
      </details>
      <ProblemList problems={p.edgeProblems(edge.id)} />
      {!readOnly && (
        <button
          type="button"
          className="btn btn-danger-ghost btn-block"
          onClick={() => p.onDelete({ nodeIds: [], edgeIds: [edge.id] })}
          data-testid="delete-edge"
        >
          Delete edge
        </button>
      )}
    </div>
  );
}

export function PropertyPanel(p: PropertyPanelProps) {
  const ids = [...p.selected];
  const nodes = p.draft.nodes.filter((n) => p.selected.has(n.uid));
  const edges = p.draft.edges.filter((e) => p.selected.has(e.id));
  let body;
  if (nodes.length === 1 && edges.length === 0) body = <NodeProperties node={nodes[0]} p={p} />;
  else if (edges.length === 1 && nodes.length === 0) body = <EdgeProperties edge={edges[0]} p={p} />;
  else if (nodes.length + edges.length > 1)
    body = (
      <div className="panel-section">
        <h2 className="panel-title">Selection</h2>
        <p>
          {nodes.length} nodes and {edges.length} edges selected.
        </p>
        {!p.readOnly && (
          <button
            type="button"
            className="btn btn-danger-ghost btn-block"
            onClick={() => p.onDelete({ nodeIds: nodes.map((n) => n.uid), edgeIds: edges.map((e) => e.id) })}
          >
            Delete selection
          </button>
        )}
      </div>
    );
  else
    body = (
      <div className="panel-section">
        <h2 className="panel-title">{ids.includes(START_ID) ? 'Start' : 'Workflow'}</h2>
        {ids.includes(START_ID) ? (
          <p className="small">
            The virtual origin. Connect it to the first node of the first stage; it cannot have incoming edges.
          </p>
        ) : (
          <>
            <dl className="facts">
              <dt>Domain</dt>
              <dd>{p.workflow.domain}</dd>
              <dt>Stages</dt>
              <dd>{p.workflow.stages.join(' → ')}</dd>
              <dt>Nodes</dt>
              <dd>{p.draft.nodes.length}</dd>
              <dt>Edges</dt>
              <dd>{p.draft.edges.length}</dd>
            </dl>
            <p className="muted small">Select a node or an edge to edit it.</p>
          </>
        )}
        <details className="help" open={!p.readOnly && p.draft.nodes.length === 0}>
          <summary>Keyboard</summary>
          <ul className="small">
            <li>Delete / Backspace — delete the selection</li>
            <li>Ctrl/⌘+Z — undo, Ctrl/⌘+Shift+Z — redo</li>
            <li>Ctrl/⌘+S — save</li>
            <li>Ctrl/⌘+A — select all nodes</li>
            <li>Ctrl/⌘+C, Ctrl/⌘+V — copy and paste nodes (with the edges between them)</li>
            <li>Ctrl/⌘+D — duplicate the selection</li>
            <li>Shift+drag — select an area</li>
          </ul>
        </details>
      </div>
    );
  return (
    <aside className="properties" aria-label="Properties" data-testid="property-panel">
      {body}
    </aside>
  );
}
