// Rename a workflow and edit its stages (PUT /studio/api/workflows/{id}), and name a clone
// (POST …/{id}/clone with {name, slug}). Errors from the API are shown next to their fields.
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Workflow, WorkflowInput } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { Field, errorFor } from '../../../shared/components/field';
import { slugify } from '../../../shared/format';
import { useFormErrors } from '../../../shared/use-form-errors';
import { workflowKeys, workflowsApi } from '../api/workflows-api';
import { useCloneWorkflow } from '../hooks/use-workflows';
import { parseStages } from './create-workflow-form';

const SLUG_RE = /^[a-z0-9-]{1,64}$/;

export function WorkflowSettingsForm({ workflow, onSaved, onCancel }: { workflow: Workflow; onSaved: (w: Workflow) => void; onCancel: () => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState(workflow.name);
  const [description, setDescription] = useState(workflow.description ?? '');
  const [stagesText, setStagesText] = useState(workflow.stages.join('\n'));
  const { fieldErrors, general, capture, clear, setFieldErrors } = useFormErrors();
  const update = useMutation({
    mutationFn: (input: WorkflowInput) => workflowsApi.update(workflow.id, input),
    onSuccess: () => qc.invalidateQueries({ queryKey: workflowKeys.all }),
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    clear();
    const stages = parseStages(stagesText);
    const local: Record<string, string> = {};
    if (!name.trim()) local.name = 'Required.';
    if (stages.length === 0) local.stages = 'List at least one stage.';
    else if (new Set(stages).size !== stages.length) local.stages = 'Stage names must be unique.';
    if (Object.keys(local).length) return setFieldErrors(local);
    const input: WorkflowInput = {};
    if (name.trim() !== workflow.name) input.name = name.trim();
    if (description.trim() !== (workflow.description ?? '')) input.description = description.trim();
    if (stages.join('\n') !== workflow.stages.join('\n')) input.stages = stages;
    if (Object.keys(input).length === 0) return onCancel();
    update.mutate(input, { onSuccess: onSaved, onError: capture });
  };

  return (
    <form className="form" onSubmit={submit} noValidate data-testid="workflow-settings-form">
      {general && (
        <Alert kind="error" testId="form-error">
          {general}
        </Alert>
      )}
      <Field label="Name" error={errorFor(fieldErrors, 'name')} required>
        <input name="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} autoFocus data-testid="workflow-settings-name" />
      </Field>
      <Field label="Description" error={errorFor(fieldErrors, 'description')}>
        <textarea name="description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} />
      </Field>
      <Field
        label="Stages"
        error={errorFor(fieldErrors, 'stages')}
        required
        hint="In order, one per line. A stage that nodes still use cannot be removed (move those nodes first)."
      >
        <textarea name="stages" rows={Math.min(10, Math.max(4, workflow.stages.length + 1))} value={stagesText} onChange={(e) => setStagesText(e.target.value)} data-testid="workflow-settings-stages" />
      </Field>
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={update.isPending} data-testid="form-save">
          {update.isPending ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

export function CloneWorkflowForm({ workflow, onCloned, onCancel }: { workflow: Workflow; onCloned: (w: Workflow) => void; onCancel: () => void }) {
  const [name, setName] = useState(`${workflow.name} (copy)`);
  const [slug, setSlug] = useState('');
  const clone = useCloneWorkflow();
  const { fieldErrors, general, capture, clear, setFieldErrors } = useFormErrors();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    clear();
    if (!name.trim()) return setFieldErrors({ name: 'Required.' });
    if (slug && !SLUG_RE.test(slug)) return setFieldErrors({ slug: 'Lowercase letters, digits and dashes (at most 64).' });
    clone.mutate({ id: workflow.id, input: { name: name.trim(), ...(slug ? { slug } : {}) } }, { onSuccess: onCloned, onError: capture });
  };
  return (
    <form className="form" onSubmit={submit} noValidate data-testid="workflow-clone-form">
      {general && (
        <Alert kind="error" testId="form-error">
          {general}
        </Alert>
      )}
      <Field label="Name of the copy" error={errorFor(fieldErrors, 'name')} required>
        <input name="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} autoFocus data-testid="clone-name" />
      </Field>
      <Field label="Slug" error={errorFor(fieldErrors, 'slug')} hint={`Optional. Derived from the name when empty${name ? `: ${slugify(name) || '…'}` : ''}.`}>
        <input name="slug" value={slug} onChange={(e) => setSlug(e.target.value.toLowerCase())} maxLength={64} data-testid="clone-slug" />
      </Field>
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={clone.isPending} data-testid="clone-save">
          {clone.isPending ? 'Cloning…' : 'Clone'}
        </button>
      </div>
    </form>
  );
}
