// The project's workspace: a folder tree, a viewer for the selected file, and its revisions.
import { useMemo, useState } from 'react';
import type { WorkspaceFile } from '../../../shared/api-types';
import { ConfirmDialog } from '../../../shared/components/confirm-dialog';
import { isMarkdownPath, Markdown } from '../../../shared/components/markdown';
import { EmptyState, ErrorState, Spinner } from '../../../shared/components/states';
import { useToast } from '../../../shared/components/toast';
import { Icon } from '../../../shared/components/icon';
import { formatBytes, formatDate } from '../../../shared/format';
import { errorMessage, isApiError } from '../../../shared/http';
import { buildFileTree, type FolderNode } from '../file-tree';
import { FileDialog } from './file-dialog';
import { useDeleteFile, useFile, useFiles, useRevisions } from '../hooks/use-run-data';

function Tree({
  node,
  selected,
  changed,
  onSelect,
}: {
  node: FolderNode<WorkspaceFile>;
  selected: string | null;
  changed: ReadonlySet<string>;
  onSelect: (path: string) => void;
}) {
  return (
    <ul className="file-tree" aria-label={node.path === '' ? 'Workspace files' : node.path}>
      {node.children.map((c) =>
        c.kind === 'folder' ? (
          <li key={c.path}>
            <details open>
              <summary className="file-folder">
                <Icon name="folder" size={14} /> {c.name}
              </summary>
              <Tree node={c} selected={selected} changed={changed} onSelect={onSelect} />
            </details>
          </li>
        ) : (
          <li key={c.path}>
            <button
              type="button"
              className={`file-item${selected === c.path ? ' selected' : ''}`}
              onClick={() => onSelect(c.path)}
              aria-current={selected === c.path ? 'true' : undefined}
              data-testid="file-item"
              data-path={c.path}
              title={`${c.path} — ${formatBytes(c.file.size)}, revision ${c.file.revision}`}
            >
              <span className="file-name">
                <Icon name="file" size={13} /> {c.name}
              </span>
              {changed.has(c.path) && (
                <span className="file-changed" aria-label="changed in this session" title="Changed in this session" />
              )}
              <span className="file-size">{formatBytes(c.file.size)}</span>
            </button>
          </li>
        ),
      )}
    </ul>
  );
}

export function FilesPanel({ projectSlug, changed }: { projectSlug: string; changed: ReadonlySet<string> }) {
  const files = useFiles(projectSlug);
  const [selected, setSelected] = useState<string | null>(null);
  const [showRevisions, setShowRevisions] = useState(false);
  const file = useFile(projectSlug, selected);
  const revisions = useRevisions(projectSlug, selected, showRevisions);
  const tree = useMemo(() => buildFileTree(files.data ?? []), [files.data]);
  const selectedMeta = files.data?.find((f) => f.path === selected);
  const toast = useToast();
  const del = useDeleteFile(projectSlug);
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);
  const [large, setLarge] = useState<string | null>(null);

  return (
    <aside className="files-panel" aria-label="Workspace files" data-testid="files-panel">
      <div className="panel-head">
        <h2 className="panel-title">Files</h2>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => void files.refetch()}
          disabled={files.isFetching}
          aria-label="Refresh files"
          data-testid="files-refresh"
        >
          {files.isFetching ? <Spinner label="Refreshing" /> : <Icon name="refresh" size={14} />}
        </button>
      </div>
      <div className="files-tree-wrap">
        {files.isPending ? (
          <div className="state state-loading">
            <Spinner /> Loading files…
          </div>
        ) : files.isError ? (
          <ErrorState error={files.error} onRetry={() => void files.refetch()} title="Could not list files" />
        ) : files.data.length === 0 ? (
          <EmptyState title="No files yet">Agents write their artifacts here.</EmptyState>
        ) : (
          <Tree node={tree} selected={selected} changed={changed} onSelect={(p) => setSelected(p)} />
        )}
      </div>
      {selected && (
        <div className="file-viewer" data-testid="file-viewer">
          <div className="file-viewer-head">
            <code className="file-path" title={selected}>
              {selected}
            </code>
            <span className="muted small">
              {file.data ? `rev ${file.data.revision}` : ''}
              {selectedMeta ? ` · ${formatBytes(selectedMeta.size)} · ${formatDate(selectedMeta.updated_at)}` : ''}
            </span>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => setLarge(selected)}
              data-testid="file-open-large"
              title="Open in a large view with revisions, diff and download"
            >
              Open
            </button>
            <button
              type="button"
              className="btn btn-small btn-danger-ghost"
              onClick={() => {
                del.reset();
                setConfirmDelete(selected);
              }}
              data-testid="file-delete"
            >
              Delete
            </button>
            <button type="button" className="btn-icon" aria-label="Close file" onClick={() => setSelected(null)}>
              ×
            </button>
          </div>
          {file.isPending ? (
            <div className="state state-loading">
              <Spinner /> Loading…
            </div>
          ) : file.isError ? (
            <p className="field-error" role="alert">
              {isApiError(file.error) && file.error.status === 404
                ? 'This file no longer exists.'
                : errorMessage(file.error)}
            </p>
          ) : isMarkdownPath(selected) ? (
            <Markdown text={file.data.content} className="file-content file-markdown" testId="file-content" />
          ) : (
            <pre className="file-content" data-testid="file-content" tabIndex={0}>
              {file.data.content}
            </pre>
          )}
          <details
            className="revisions"
            open={showRevisions}
            onToggle={(e) => setShowRevisions((e.target as HTMLDetailsElement).open)}
          >
            <summary>Revisions</summary>
            {revisions.isPending ? (
              showRevisions && <Spinner />
            ) : revisions.isError ? (
              <p className="field-error">{errorMessage(revisions.error)}</p>
            ) : revisions.data.length === 0 ? (
              <p className="muted small">No earlier revisions.</p>
            ) : (
              <ol className="revision-list" data-testid="revisions">
                {revisions.data.map((r) => (
                  <li key={r.revision}>
                    <strong>rev {r.revision}</strong>
                    {r.change && <span className="muted"> {r.change}</span>}
                    {r.size !== undefined && <span className="muted"> · {formatBytes(r.size)}</span>}
                    {r.created_at && <span className="muted"> · {formatDate(r.created_at)}</span>}
                  </li>
                ))}
              </ol>
            )}
          </details>
        </div>
      )}
      <FileDialog
        slug={projectSlug}
        path={large}
        onClose={() => setLarge(null)}
        onDelete={(p) => {
          del.reset();
          setConfirmDelete(p);
        }}
      />
      <ConfirmDialog
        open={confirmDelete !== null}
        title={`Delete ${confirmDelete ?? ''}?`}
        pending={del.isPending}
        error={del.error}
        onCancel={() => setConfirmDelete(null)}
        onConfirm={() => {
          const path = confirmDelete;
          if (!path) return;
          del.mutate(path, {
            onSuccess: () => {
              setConfirmDelete(null);
              setSelected(null);
              setLarge(null);
              toast.show(`Deleted ${path}`);
            },
          });
        }}
      >
        <p>Its revisions are kept (the deletion is recorded as a revision); agents no longer see the file.</p>
      </ConfirmDialog>
    </aside>
  );
}
