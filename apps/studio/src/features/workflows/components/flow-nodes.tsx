// Canvas node renderers. Memoised and defined once at module level (nodeTypes must be stable) so a
// 500-node graph re-renders only the nodes whose data changed.
import { memo } from 'react';
import {
  BaseEdge,
  EdgeLabelRenderer,
  Handle,
  Position,
  getSmoothStepPath,
  type EdgeProps,
  type NodeProps,
} from '@xyflow/react';
import { Icon } from '../../../shared/components/icon';
import type { FlowEdge, StartFlowNode, StepFlowNode } from '../graph-draft';

const TYPE_LABEL: Record<string, string> = { agent: 'Agent', gate: 'Gate', branch: 'Branch' };

export const StepNode = memo(function StepNode({ data, selected }: NodeProps<StepFlowNode>) {
  const { node, color, agentName, errors, warnings, readOnly } = data;
  const artifact = typeof node.config.artifact === 'string' ? node.config.artifact : null;
  const title = [...errors.map((e) => `Error: ${e}`), ...warnings.map((w) => `Warning: ${w}`)].join('\n') || undefined;
  return (
    <div
      className={`flow-node flow-node-${node.type}${selected ? ' selected' : ''}${errors.length ? ' has-error' : ''}`}
      style={{ ['--stage-color' as string]: color }}
      data-testid="flow-node"
      data-node-key={node.node_key}
      data-node-type={node.type}
      title={title}
    >
      <Handle
        type="target"
        position={Position.Left}
        isConnectable={!readOnly}
        aria-label={`Connect into ${node.node_key}`}
      />
      <div className="flow-node-head">
        <Icon name={node.type} size={14} className="flow-node-icon" />
        <span className="flow-node-key">{node.node_key}</span>
        {(errors.length > 0 || warnings.length > 0) && (
          <span className="flow-node-badges">
            {errors.length > 0 && (
              <span
                className="node-badge node-badge-error"
                data-testid="node-error-badge"
                aria-label={`${errors.length} errors`}
              >
                {errors.length}
              </span>
            )}
            {warnings.length > 0 && (
              <span
                className="node-badge node-badge-warning"
                data-testid="node-warning-badge"
                aria-label={`${warnings.length} warnings`}
              >
                !
              </span>
            )}
          </span>
        )}
      </div>
      <div className="flow-node-body">
        <span className="flow-node-sub">
          {node.type === 'agent' ? (agentName ?? <em className="muted">no agent</em>) : TYPE_LABEL[node.type]}
        </span>
        <span className="flow-node-stage">{node.stage_label ?? 'no stage'}</span>
        {artifact && (
          <span className="flow-node-artifact" title={artifact}>
            <Icon name="file" size={11} /> {artifact}
          </span>
        )}
      </div>
      <Handle
        type="source"
        position={Position.Right}
        isConnectable={!readOnly}
        aria-label={`Connect from ${node.node_key}`}
      />
    </div>
  );
});

export const StartNode = memo(function StartNode({ selected, isConnectable }: NodeProps<StartFlowNode>) {
  return (
    <div
      className={`flow-start${selected ? ' selected' : ''}`}
      data-testid="flow-node-start"
      title="Start: the virtual origin of every run"
    >
      <Icon name="play" size={11} /> Start
      <Handle type="source" position={Position.Right} isConnectable={isConnectable} aria-label="Connect from start" />
    </div>
  );
});

export const nodeTypes = { step: StepNode, start: StartNode };

/**
 * A loop edge (back to an earlier node) or an edge into the next stage lane: drawn with right angles,
 * its horizontal run at `data.loopY` — below the nodes it passes (draft/canvas-geometry.ts, edgeRoute) — so it
 * never crosses them or hides under the forward edges, and a click on it selects it.
 */
export const LoopEdge = memo(function LoopEdge(props: EdgeProps<FlowEdge>) {
  const {
    id,
    sourceX,
    sourceY,
    targetX,
    targetY,
    sourcePosition,
    targetPosition,
    data,
    markerEnd,
    style,
    label,
    selected,
  } = props;
  const [path, labelX, labelY] = getSmoothStepPath({
    sourceX,
    sourceY,
    targetX,
    targetY,
    sourcePosition,
    targetPosition,
    borderRadius: 10,
    offset: 24,
    ...(data?.loopY !== undefined ? { centerY: data.loopY } : {}),
  });
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} style={style} interactionWidth={24} />
      {label && (
        <EdgeLabelRenderer>
          <div
            className={`edge-label nodrag nopan${selected ? ' selected' : ''}`}
            style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${data?.loopY ?? labelY}px)` }}
          >
            {label}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
});

export const edgeTypes = { loop: LoopEdge };
