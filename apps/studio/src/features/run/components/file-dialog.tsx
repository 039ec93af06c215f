// The large file view: the whole path, the content (Markdown rendered, or the source), the revision
// list with a line diff of any revision against the current one, download and delete.
import { useEffect, useId, useRef, useState } from 'react';
import type { FileRevision } from '../../../shared/api-types';
import { isMarkdownPath, Markdown } from '../../../shared/components/markdown';
import { Spinner } from '../../../shared/components/states';
import { formatBytes, formatDate } from '../../../shared/format';
import { errorMessage } from '../../../shared/http';
import { lineDiff } from '../../../shared/text-diff';
import { useFile, useFileAt, useRevisions } from '../hooks/use-run-data';

function downloadText(path: string, content: string) {
  const blob = new Blob([content], { type: 'text/plain;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = path.split('/').pop() || 'file.txt';
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function Diff({ before, after }: { before: string; after: string }) {
  const lines = lineDiff(before, after);
  if (lines.every((l) => l.kind === 'same' || l.kind === 'fold')) return <p className="muted small">No changes.</p>;
  return (
    <pre className="diff" data-testid="file-diff">
      {lines.map((l, i) =>
        l.kind === 'fold' ? (
          <div key={i} className="diff-fold">
            ⋯ {l.count} unchanged {l.count === 1 ? 'line' : 'lines'}
          </div>
        ) : (
          <div key={i} className={`diff-line diff-${l.kind}`} data-kind={l.kind}>
            <span className="diff-sign" aria-hidden="true">
              {l.kind === 'added' ? '+' : l.kind === 'removed' ? '−' : ' '}
            </span>
            {l.text || ' '}
          </div>
        ),
      )}
    </pre>
  );
}

export function FileDialog({
  slug,
  path,
  onClose,
  onDelete,
}: {
  slug: string;
  path: string | null;
  onClose: () => void;
  onDelete: (path: string) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [view, setView] = useState<'preview' | 'source'>('preview');
  const [compare, setCompare] = useState<number | null>(null);
  const file = useFile(slug, path);
  const revisions = useRevisions(slug, path, !!path);
  const older = useFileAt(slug, path, compare);

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (path && !d.open) d.showModal();
    if (!path && d.open) d.close();
    setCompare(null);
  }, [path]);

  const markdown = path ? isMarkdownPath(path) : false;
  const current = file.data;
  return (
    <dialog
      ref={ref}
      className="modal modal-large"
      aria-labelledby={titleId}
      data-testid="file-dialog"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {path && (
        <div className="file-dialog">
          <header className="file-dialog-head">
            <h2 id={titleId} className="file-dialog-path" data-testid="file-dialog-path">
              {path}
            </h2>
            <span className="muted small">
              {current ? `revision ${current.revision} · ${formatBytes(new Blob([current.content]).size)}` : ''}
            </span>
            <div className="row-actions">
              {markdown && (
                <div className="segmented" role="group" aria-label="View">
                  <button
                    type="button"
                    className={`btn btn-small${view === 'preview' ? ' active' : ''}`}
                    aria-pressed={view === 'preview'}
                    onClick={() => setView('preview')}
                  >
                    Preview
                  </button>
                  <button
                    type="button"
                    className={`btn btn-small${view === 'source' ? ' active' : ''}`}
                    aria-pressed={view === 'source'}
                    onClick={() => setView('source')}
                    data-testid="file-view-source"
                  >
                    Source
                  </button>
                </div>
              )}
              <button
                type="button"
                className="btn btn-small"
                disabled={!current}
                onClick={() => current && downloadText(path, current.content)}
                data-testid="file-download"
              >
                Download
              </button>
              <button
                type="button"
                className="btn btn-small btn-danger-ghost"
                onClick={() => onDelete(path)}
                data-testid="file-dialog-delete"
              >
                Delete
              </button>
              <button
                type="button"
                className="btn btn-small"
                onClick={onClose}
                data-testid="file-dialog-close"
                autoFocus
              >
                Close
              </button>
            </div>
          </header>
          <div className="file-dialog-body">
            <div className="file-dialog-main">
              {compare !== null ? (
                <>
                  <p className="small">
                    Changes from revision {compare} to the current revision {current?.revision}{' '}
                    <button type="button" className="btn-link" onClick={() => setCompare(null)}>
                      Back to the file
                    </button>
                  </p>
                  {older.isPending || !current ? (
                    <Spinner />
                  ) : older.isError ? (
                    <p className="field-error">{errorMessage(older.error)}</p>
                  ) : (
                    <Diff before={older.data.content} after={current.content} />
                  )}
                </>
              ) : file.isPending ? (
                <Spinner />
              ) : file.isError ? (
                <p className="field-error" role="alert">
                  {errorMessage(file.error)}
                </p>
              ) : markdown && view === 'preview' ? (
                <Markdown text={file.data.content} testId="file-dialog-markdown" />
              ) : (
                <pre className="file-content file-content-large" data-testid="file-dialog-source" tabIndex={0}>
                  {file.data.content}
                </pre>
              )}
            </div>
            <aside className="file-dialog-revisions" aria-label="Revisions">
              <h3 className="panel-title">Revisions</h3>
              {revisions.isPending ? (
                <Spinner />
              ) : revisions.isError ? (
                <p className="field-error">{errorMessage(revisions.error)}</p>
              ) : (
                <ol className="revision-list" data-testid="file-dialog-revisions">
                  {revisions.data.map((r: FileRevision) => {
                    const isCurrent = r.revision === current?.revision;
                    const deleted = r.change === 'deleted';
                    return (
                      <li key={r.revision}>
                        <button
                          type="button"
                          className={`revision-item${compare === r.revision ? ' selected' : ''}`}
                          disabled={isCurrent || deleted}
                          onClick={() => setCompare(r.revision)}
                          data-testid="revision-item"
                          data-revision={r.revision}
                          title={
                            isCurrent
                              ? 'The current revision'
                              : deleted
                                ? 'The file was deleted here'
                                : `Compare revision ${r.revision} with the current one`
                          }
                        >
                          <strong>rev {r.revision}</strong>
                          {r.change && <span className="muted"> {r.change}</span>}
                          {isCurrent && <span className="muted"> (current)</span>}
                          {r.created_at && <span className="muted small"> · {formatDate(r.created_at)}</span>}
                        </button>
                      </li>
                    );
                  })}
                </ol>
              )}
            </aside>
          </div>
        </div>
      )}
    </dialog>
  );
}
