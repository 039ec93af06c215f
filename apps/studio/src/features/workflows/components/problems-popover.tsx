import type { ProblemEntry } from '../draft/problem-list';

/** The editor's problems list; a node's row focuses that node on the canvas. */
export function ProblemsPopover({
  entries,
  onClose,
  onFocus,
}: {
  entries: readonly ProblemEntry[];
  onClose: () => void;
  onFocus: (uid: string) => void;
}) {
  return (
    <div className="problems-popover" role="region" aria-label="Problems" data-testid="problems-list">
      <div className="problems-head">
        <strong>Problems</strong>
        <button type="button" className="btn-icon" aria-label="Close problems" onClick={onClose}>
          ×
        </button>
      </div>
      {entries.length === 0 ? (
        <p className="muted small">No problems found.</p>
      ) : (
        <ul>
          {entries.slice(0, 100).map((p) => (
            <li key={p.key} className={`problem problem-${p.kind}`}>
              {p.uid ? (
                <button type="button" className="btn-link" onClick={() => onFocus(p.uid!)}>
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
  );
}
