// The editor's version history: every save is a version (docs/API.md, "Workflow versions"). List them,
// view one's nodes and edges, restore one — saved as a new version, so nothing in history is lost.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Workflow } from '../../../shared/api-types';
import { Badge } from '../../../shared/components/badge';
import { ConfirmDialog } from '../../../shared/components/confirm-dialog';
import { Drawer } from '../../../shared/components/drawer';
import { ErrorState, Loading } from '../../../shared/components/states';
import { useToast } from '../../../shared/components/toast';
import { formatDate } from '../../../shared/format';
import { workflowKeys, workflowsApi } from '../api/workflows-api';

function VersionDetail({ workflowId, version }: { workflowId: number; version: number }) {
  const q = useQuery({
    queryKey: workflowKeys.version(workflowId, version),
    queryFn: ({ signal }) => workflowsApi.version(workflowId, version, signal),
  });
  if (q.isPending) return <Loading label="Loading the version…" />;
  if (q.isError) return <ErrorState error={q.error} />;
  const { nodes, edges } = q.data;
  return (
    <div className="version-detail" data-testid="version-detail">
      <h3>Nodes</h3>
      {nodes.length === 0 ? (
        <p className="muted small">No nodes.</p>
      ) : (
        <ul>
          {nodes.map((n) => (
            <li key={n.node_key}>
              <code>{n.node_key}</code> <span className="muted">{n.type}</span>
              {n.stage_label && <span className="chip chip-small">{n.stage_label}</span>}
            </li>
          ))}
        </ul>
      )}
      <h3>Edges</h3>
      {edges.length === 0 ? (
        <p className="muted small">No edges.</p>
      ) : (
        <ul>
          {edges.map((e, i) => (
            <li key={i}>
              <code>{e.from_node}</code> → <code>{e.to_node}</code>
              {e.condition && <span className="muted"> if {e.condition}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function VersionHistory({
  workflow,
  version,
  dirty,
  readOnly,
  onRestored,
}: {
  workflow: Workflow;
  /** the version the editor has loaded */
  version: number;
  dirty: boolean;
  readOnly: boolean;
  onRestored: () => Promise<void>;
}) {
  const qc = useQueryClient();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [viewing, setViewing] = useState<number | null>(null);
  const [restoring, setRestoring] = useState<number | null>(null);
  const list = useQuery({
    queryKey: workflowKeys.versions(workflow.id),
    queryFn: ({ signal }) => workflowsApi.versions(workflow.id, null, signal),
    enabled: open,
  });
  const restore = useMutation({
    mutationFn: (v: number) => workflowsApi.restoreVersion(workflow.id, v, version),
    onSuccess: async (saved, v) => {
      setRestoring(null);
      setOpen(false);
      toast.show(`Restored version ${v} as version ${saved.version}`);
      await qc.invalidateQueries({ queryKey: workflowKeys.versions(workflow.id) });
      await onRestored();
    },
  });

  return (
    <>
      <button
        type="button"
        className="btn btn-small"
        onClick={() => {
          setViewing(null);
          setOpen(true);
        }}
        data-testid="version-history"
        title="Earlier versions of this workflow"
      >
        History
      </button>
      <Drawer open={open} title="Version history" onClose={() => setOpen(false)} testId="versions-drawer">
        <p className="muted small">
          Every save is a version. Restoring one saves it again as the newest version; nothing is lost.
        </p>
        {list.isPending ? (
          <Loading label="Loading versions…" />
        ) : list.isError ? (
          <ErrorState error={list.error} onRetry={() => void list.refetch()} />
        ) : (
          <ol className="version-list">
            {list.data.versions.map((v) => (
              <li key={v.version} data-testid="version-row" data-version={v.version}>
                <div className="version-head">
                  <strong>v{v.version}</strong>
                  {v.current && <Badge kind="success">current</Badge>}
                  <span className="muted small">
                    {formatDate(v.saved_at)} · {v.node_count} nodes · {v.edge_count} edges
                  </span>
                  <span className="version-actions">
                    <button
                      type="button"
                      className="btn btn-small"
                      aria-expanded={viewing === v.version}
                      onClick={() => setViewing((x) => (x === v.version ? null : v.version))}
                      data-testid="version-view"
                    >
                      {viewing === v.version ? 'Hide' : 'View'}
                    </button>
                    {!readOnly && !v.current && (
                      <button
                        type="button"
                        className="btn btn-small"
                        onClick={() => {
                          restore.reset();
                          setRestoring(v.version);
                        }}
                        data-testid="version-restore"
                      >
                        Restore
                      </button>
                    )}
                  </span>
                </div>
                {viewing === v.version && <VersionDetail workflowId={workflow.id} version={v.version} />}
              </li>
            ))}
          </ol>
        )}
      </Drawer>
      <ConfirmDialog
        open={restoring !== null}
        title={`Restore version ${restoring ?? ''}?`}
        confirmLabel="Restore"
        danger={dirty}
        pending={restore.isPending}
        error={restore.error}
        onCancel={() => setRestoring(null)}
        onConfirm={() => restoring !== null && restore.mutate(restoring)}
      >
        <p>
          Its graph is saved as version {version + 1}; version {version} stays in the history.
          {dirty && <strong> Your unsaved changes are discarded.</strong>}
        </p>
      </ConfirmDialog>
    </>
  );
}
