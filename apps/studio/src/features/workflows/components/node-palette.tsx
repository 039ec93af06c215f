// The palette: drag a node type onto the canvas, or click (or press Enter) to add it at the centre.
import type { DragEvent } from 'react';
import type { NodeType } from '../../../shared/api-types';
import { Icon } from '../../../shared/components/icon';

export const DND_TYPE = 'application/x-workflow-node';

const ITEMS: { type: NodeType; label: string; help: string }[] = [
  { type: 'agent', label: 'Agent', help: 'Runs an agent; may write an artifact.' },
  { type: 'gate', label: 'Gate', help: 'Stops the turn until a person approves.' },
  { type: 'branch', label: 'Branch', help: 'Takes the first outgoing edge whose condition holds.' },
];

export function NodePalette({
  onAdd,
  disabled,
  stages,
  stage,
  onStageChange,
}: {
  onAdd: (type: NodeType) => void;
  disabled: boolean;
  stages: readonly string[];
  stage: string | null;
  onStageChange: (stage: string | null) => void;
}) {
  const onDragStart = (e: DragEvent, type: NodeType) => {
    e.dataTransfer.setData(DND_TYPE, type);
    e.dataTransfer.setData('text/plain', type);
    e.dataTransfer.effectAllowed = 'move';
  };
  return (
    <aside className="palette" aria-label="Node palette" data-testid="palette">
      <h2 className="panel-title">Add nodes</h2>
      <p className="muted small">Drag onto the canvas, or click to add.</p>
      <ul className="palette-list">
        {ITEMS.map((it) => (
          <li key={it.type}>
            <button
              type="button"
              className={`palette-item palette-${it.type}`}
              draggable={!disabled}
              onDragStart={(e) => onDragStart(e, it.type)}
              onClick={() => onAdd(it.type)}
              disabled={disabled}
              data-testid={`palette-${it.type}`}
              aria-label={`Add ${it.label.toLowerCase()} node`}
              title={it.help}
            >
              <Icon name={it.type} size={18} className="palette-icon" />
              <span>
                <strong>{it.label}</strong>
                <small>{it.help}</small>
              </span>
            </button>
          </li>
        ))}
      </ul>
      <label className="field">
        <span className="field-label">Stage for new nodes</span>
        <select
          value={stage ?? ''}
          onChange={(e) => onStageChange(e.target.value || null)}
          disabled={disabled}
          data-testid="palette-stage"
        >
          <option value="">— none —</option>
          {stages.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
    </aside>
  );
}
