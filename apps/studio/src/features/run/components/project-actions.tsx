// Rename or delete the selected project (PATCH / DELETE /studio/api/projects/{slug}).
import { useState, type FormEvent } from 'react';
import type { Project } from '../../../shared/api-types';
import { ConfirmDialog } from '../../../shared/components/confirm-dialog';
import { useToast } from '../../../shared/components/toast';
import { errorMessage } from '../../../shared/http';
import { useDeleteProject, useForgetProject, useRenameProject } from '../hooks/use-run-data';

export function ProjectActions({
  project,
  busy,
  onDeleted,
}: {
  project: Project;
  busy: boolean;
  onDeleted: () => void;
}) {
  const toast = useToast();
  const rename = useRenameProject();
  const remove = useDeleteProject();
  const forget = useForgetProject();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(project.name ?? project.slug);
  const [confirming, setConfirming] = useState(false);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return;
    rename.mutate(
      { slug: project.slug, name: name.trim() },
      {
        onSuccess: (p) => {
          setEditing(false);
          toast.show(`Renamed to “${p.name ?? p.slug}”`);
        },
      },
    );
  };

  if (editing) {
    return (
      <form className="project-create" onSubmit={submit} data-testid="project-rename-form">
        <label className="inline-field">
          <span>Name</span>
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={200}
            autoFocus
            required
            data-testid="project-rename-name"
          />
        </label>
        <button
          type="submit"
          className="btn btn-primary btn-small"
          disabled={rename.isPending || !name.trim()}
          data-testid="project-rename-save"
        >
          {rename.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="btn btn-small" onClick={() => setEditing(false)}>
          Cancel
        </button>
        {rename.error != null && (
          <span className="field-error" role="alert">
            {errorMessage(rename.error)}
          </span>
        )}
      </form>
    );
  }

  return (
    <>
      <button
        type="button"
        className="btn btn-small"
        onClick={() => {
          rename.reset();
          setName(project.name ?? project.slug);
          setEditing(true);
        }}
        data-testid="project-rename"
      >
        Rename
      </button>
      <button
        type="button"
        className="btn btn-small btn-danger-ghost"
        onClick={() => {
          remove.reset();
          setConfirming(true);
        }}
        disabled={busy}
        title={busy ? 'Wait for the turn to finish (or stop it) first' : undefined}
        data-testid="project-delete"
      >
        Delete
      </button>
      <ConfirmDialog
        open={confirming}
        title={`Delete project “${project.name ?? project.slug}”?`}
        pending={remove.isPending}
        error={remove.error}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          remove.mutate(project.slug, {
            onSuccess: () => {
              setConfirming(false);
              toast.show(`Deleted project “${project.name ?? project.slug}”`);
              onDeleted();
              setTimeout(() => forget(project.slug), 0);
            },
          })
        }
      >
        <p>Its files, their revisions and its chat history are deleted too. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}
