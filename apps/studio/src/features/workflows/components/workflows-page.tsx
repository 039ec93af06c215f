// /studio/workflows — packs: list, create, clone, import, export, delete; links to Edit and Run.
import { useRef, useState, type ChangeEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import type { Workflow } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { Badge, SystemBadge } from '../../../shared/components/badge';
import { ConfirmDialog } from '../../../shared/components/confirm-dialog';
import { Drawer } from '../../../shared/components/drawer';
import { PageHeader } from '../../../shared/components/page-header';
import { EmptyState, ErrorState, Loading } from '../../../shared/components/states';
import { useToast } from '../../../shared/components/toast';
import { downloadJson } from '../../../shared/download';
import { formatDate } from '../../../shared/format';
import { errorMessage, isApiError } from '../../../shared/http';
import { useDocumentTitle } from '../../../shared/use-document-title';
import { CloneWorkflowForm, WorkflowSettingsForm } from './workflow-settings-form';
import { useDeleteWorkflow, useExportWorkflow, useImportWorkflow, useWorkflows } from '../hooks/use-workflows';
import { CreateWorkflowForm } from './create-workflow-form';

function count(v: number | unknown[] | undefined): number {
  return Array.isArray(v) ? v.length : typeof v === 'number' ? v : 0;
}

export function WorkflowsPage() {
  useDocumentTitle('Workflows');
  const workflows = useWorkflows();
  const del = useDeleteWorkflow();
  const exp = useExportWorkflow();
  const imp = useImportWorkflow();
  const toast = useToast();
  const navigate = useNavigate();
  const fileRef = useRef<HTMLInputElement>(null);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Workflow | null>(null);
  const [importError, setImportError] = useState<{ message: string; items: string[] } | null>(null);
  const [busyId, setBusyId] = useState<number | null>(null);
  const [editing, setEditing] = useState<Workflow | null>(null);
  const [cloning, setCloning] = useState<Workflow | null>(null);

  const onImportFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    setImportError(null);
    let doc: unknown;
    try {
      doc = JSON.parse(await file.text());
    } catch {
      setImportError({ message: `“${file.name}” is not a JSON file.`, items: [] });
      return;
    }
    imp.mutate(doc, {
      onSuccess: (r) => {
        const c = r.created ?? { models: 0, skills: 0, agents: 0 };
        toast.show(
          `Imported “${r.workflow.name}” (${count(c.agents)} agents, ${count(c.skills)} skills, ${count(c.models)} models created)`,
        );
      },
      onError: (err) =>
        setImportError({
          message: `Import failed: ${errorMessage(err)}`,
          items: isApiError(err) ? err.errors.map((x) => `${x.field}: ${x.message}`) : [],
        }),
    });
  };

  const onExport = (w: Workflow) => {
    setBusyId(w.id);
    exp.mutate(w.id, {
      onSuccess: (doc) => {
        downloadJson(`${w.slug || 'workflow'}.workflow.json`, doc);
        toast.show(`Exported “${w.name}”`);
      },
      onError: (err) => toast.show(`Export failed: ${errorMessage(err)}`, 'error'),
      onSettled: () => setBusyId(null),
    });
  };

  const onClone = (w: Workflow) => setCloning(w);

  const actions = (
    <>
      <input
        ref={fileRef}
        type="file"
        accept="application/json,.json"
        hidden
        onChange={(e) => void onImportFile(e)}
        data-testid="import-file"
        aria-label="Workflow file to import"
      />
      <button
        type="button"
        className="btn"
        onClick={() => fileRef.current?.click()}
        disabled={imp.isPending}
        data-testid="workflows-import"
      >
        {imp.isPending ? 'Importing…' : 'Import'}
      </button>
      <button type="button" className="btn btn-primary" onClick={() => setCreating(true)} data-testid="workflows-new">
        New workflow
      </button>
    </>
  );

  return (
    <div className="page" data-testid="workflows-page">
      <PageHeader
        title="Workflows"
        subtitle="Packs of agents, gates and branches, organised in stages."
        actions={actions}
      />
      {importError && (
        <Alert kind="error" title={importError.message} onDismiss={() => setImportError(null)} testId="import-error">
          {importError.items.length > 0 && (
            <ul>
              {importError.items.slice(0, 20).map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          )}
        </Alert>
      )}
      {workflows.isPending ? (
        <Loading label="Loading workflows…" />
      ) : workflows.isError ? (
        <ErrorState error={workflows.error} onRetry={() => void workflows.refetch()} />
      ) : workflows.data.length === 0 ? (
        <EmptyState title="No workflows yet" action={actions}>
          Create a workflow, or import one exported from another server.
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="workflows-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Slug</th>
                <th scope="col">Domain</th>
                <th scope="col">Stages</th>
                <th scope="col" className="num">
                  Version
                </th>
                <th scope="col">Updated</th>
                <th scope="col" className="col-actions">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {workflows.data.map((w) => (
                <tr key={w.id} data-testid="workflows-row" data-name={w.name} data-slug={w.slug}>
                  <td>
                    <Link to={`/studio/workflows/${w.id}`} className="strong-link">
                      {w.name}
                    </Link>{' '}
                    {w.is_system && <SystemBadge />}
                    {w.description && <div className="muted small clamp">{w.description}</div>}
                  </td>
                  <td>
                    <code>{w.slug}</code>
                  </td>
                  <td>
                    <Badge kind="info">{w.domain}</Badge>
                  </td>
                  <td>
                    <span className="chips" aria-label={`Stages: ${w.stages.join(', ')}`}>
                      {w.stages.map((s) => (
                        <span key={s} className="chip">
                          {s}
                        </span>
                      ))}
                    </span>
                  </td>
                  <td className="num">{w.version}</td>
                  <td className="muted nowrap">{formatDate(w.updated_at)}</td>
                  <td className="col-actions">
                    <div className="row-actions">
                      <Link
                        className="btn btn-small"
                        to={`/studio/workflows/${w.id}`}
                        data-testid="workflow-edit"
                        aria-label={`${w.is_system ? 'View' : 'Edit'} ${w.name}`}
                      >
                        {w.is_system ? 'View' : 'Edit'}
                      </Link>
                      <Link
                        className="btn btn-small btn-primary"
                        to={`/studio/workflows/${w.id}/run`}
                        data-testid="workflow-run"
                        aria-label={`Run ${w.name}`}
                      >
                        Run
                      </Link>
                      <button
                        type="button"
                        className="btn btn-small"
                        onClick={() => onClone(w)}
                        disabled={busyId === w.id}
                        data-testid="workflow-clone"
                        aria-label={`Clone ${w.name}`}
                      >
                        Clone
                      </button>
                      <button
                        type="button"
                        className="btn btn-small"
                        onClick={() => onExport(w)}
                        disabled={busyId === w.id}
                        data-testid="workflow-export"
                        aria-label={`Export ${w.name}`}
                      >
                        Export
                      </button>
                      {!w.is_system && (
                        <button
                          type="button"
                          className="btn btn-small"
                          onClick={() => setEditing(w)}
                          data-testid="workflow-settings"
                          aria-label={`Settings of ${w.name}`}
                        >
                          Settings
                        </button>
                      )}
                      {!w.is_system && (
                        <button
                          type="button"
                          className="btn btn-small btn-danger-ghost"
                          onClick={() => {
                            del.reset();
                            setDeleting(w);
                          }}
                          data-testid="workflow-delete"
                          aria-label={`Delete ${w.name}`}
                        >
                          Delete
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <Drawer open={creating} title="New workflow" onClose={() => setCreating(false)} testId="workflow-create-drawer">
        {creating && (
          <CreateWorkflowForm
            onCancel={() => setCreating(false)}
            onCreated={(w) => {
              setCreating(false);
              toast.show(`Created “${w.name}”`);
              void navigate(`/studio/workflows/${w.id}`);
            }}
          />
        )}
      </Drawer>

      <Drawer
        open={editing !== null}
        title={`Settings of “${editing?.name ?? ''}”`}
        onClose={() => setEditing(null)}
        testId="workflow-settings-drawer"
      >
        {editing && (
          <WorkflowSettingsForm
            workflow={editing}
            onCancel={() => setEditing(null)}
            onSaved={(w) => {
              setEditing(null);
              toast.show(`Saved “${w.name}”`);
            }}
          />
        )}
      </Drawer>

      <Drawer
        open={cloning !== null}
        title={`Clone “${cloning?.name ?? ''}”`}
        onClose={() => setCloning(null)}
        testId="workflow-clone-drawer"
      >
        {cloning && (
          <CloneWorkflowForm
            workflow={cloning}
            onCancel={() => setCloning(null)}
            onCloned={(c) => {
              const from = cloning.name;
              setCloning(null);
              toast.show(`Cloned “${from}” as “${c.name}”`);
            }}
          />
        )}
      </Drawer>

      <ConfirmDialog
        open={deleting !== null}
        title={`Delete workflow “${deleting?.name ?? ''}”?`}
        pending={del.isPending}
        error={del.error}
        onCancel={() => setDeleting(null)}
        onConfirm={() => {
          if (!deleting) return;
          const name = deleting.name;
          del.mutate(deleting.id, {
            onSuccess: () => {
              setDeleting(null);
              toast.show(`Deleted “${name}”`);
            },
          });
        }}
      >
        <p>Its graph is deleted too. Projects bound to it must be rebound first.</p>
      </ConfirmDialog>
    </div>
  );
}
