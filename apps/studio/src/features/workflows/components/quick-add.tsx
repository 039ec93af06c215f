// Quick add: a searchable list to add a node (Tab, or "+" beside a node or on a selected edge) — after
// the selected node, onto the selected edge, or on its own — or to connect the selected node to another
// one ("c", or "Connect…"): the keyboard way to build a graph. Arrow keys move, Enter picks, Escape closes.
import { NodeToolbar, Panel, Position } from '@xyflow/react';
import { useId, useMemo, useState, type KeyboardEvent } from 'react';

export interface QuickOption {
  key: string;
  label: string;
  hint?: string;
}

export function QuickAdd({
  title,
  placeholder,
  options,
  onPick,
  onClose,
}: {
  title: string;
  placeholder: string;
  options: readonly QuickOption[];
  onPick: (key: string) => void;
  onClose: () => void;
}) {
  const id = useId();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    return q ? options.filter((o) => `${o.label} ${o.hint ?? ''}`.toLowerCase().includes(q)) : options;
  }, [options, query]);
  const current = Math.min(active, Math.max(shown.length - 1, 0));

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((current + step + shown.length) % Math.max(shown.length, 1));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (shown[current]) onPick(shown[current].key);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onClose();
    }
  };

  return (
    <div className="quick-add" role="dialog" aria-label={title} data-testid="quick-add">
      <div className="quick-add-title">{title}</div>
      <input
        autoFocus
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
        onBlur={(e) => {
          if (!e.currentTarget.parentElement?.contains(e.relatedTarget)) onClose();
        }}
        placeholder={placeholder}
        role="combobox"
        aria-expanded="true"
        aria-controls={`${id}-list`}
        aria-activedescendant={shown[current] ? `${id}-${current}` : undefined}
        data-testid="quick-add-search"
      />
      <ul id={`${id}-list`} role="listbox" className="quick-add-list">
        {shown.length === 0 && <li className="muted small">Nothing matches “{query}”.</li>}
        {shown.slice(0, 50).map((o, i) => (
          <li
            key={o.key}
            id={`${id}-${i}`}
            role="option"
            aria-selected={i === current}
            className={i === current ? 'active' : undefined}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => onPick(o.key)}
            data-testid="quick-add-option"
          >
            <span>{o.label}</span>
            {o.hint && <span className="muted small">{o.hint}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Inside the canvas: "+" and "Connect…" beside the one selected node, "Insert a node" for a selected edge. */
export function QuickAddControls({
  selected,
  isEdge,
  onAdd,
  onConnect,
}: {
  selected: string | null;
  isEdge: boolean;
  onAdd: () => void;
  onConnect: () => void;
}) {
  if (selected === null) return null;
  if (isEdge)
    return (
      <Panel position="top-center">
        <button type="button" className="btn btn-small" onClick={onAdd} data-testid="edge-insert">
          + Insert a node on this edge (Tab)
        </button>
      </Panel>
    );
  return (
    <NodeToolbar nodeId={selected} position={Position.Bottom} isVisible className="node-quick">
      <button
        type="button"
        className="btn btn-small"
        onClick={onAdd}
        aria-label="Add a node after this one (Tab)"
        title="Add a node after this one (Tab)"
        data-testid="node-add-after"
      >
        +
      </button>
      <button
        type="button"
        className="btn btn-small"
        onClick={onConnect}
        title="Connect this node to another one (c)"
        data-testid="node-connect"
      >
        Connect…
      </button>
    </NodeToolbar>
  );
}
