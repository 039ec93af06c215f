// Rename a workflow and edit its stages (PUT /studio/api/workflows/{id}), and name a clone
// (POST …/{id}/clone with {name, slug}). Errors from the API are shown next to their fields.
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Workflow, WorkflowInput } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { errorFor } from '../../../shared/components/field';
import { useFormErrors } from '../../../shared/use-form-errors';
import { workflowKeys, workflowsApi } from '../api/workflows-api';
import { useCloneWorkflow } from '../hooks/use-workflows';
import { parseStages, SLUG_MESSAGE, SLUG_RE, stagesProblem } from '../workflow-form-rules';
import { WorkflowDescriptionField, WorkflowNameField, WorkflowSlugField, WorkflowStagesField } from './workflow-fields';

export function WorkflowSettingsForm({
  workflow,
  onSaved,
  onCancel,
}: {
  workflow: Workflow;
  onSaved: (w: Workflow) => void;
  onCancel: () => void;
}) {
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
    const problem = stagesProblem(stages);
    if (problem) local.stages = problem;
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
      <WorkflowNameField
        value={name}
        onChange={setName}
        error={errorFor(fieldErrors, 'name')}
        testId="workflow-settings-name"
      />
      <WorkflowDescriptionField
        value={description}
        onChange={setDescription}
        error={errorFor(fieldErrors, 'description')}
      />
      <WorkflowStagesField
        value={stagesText}
        onChange={setStagesText}
        error={errorFor(fieldErrors, 'stages')}
        hint="In order, one per line. A stage that nodes still use cannot be removed (move those nodes first)."
        rows={Math.min(10, Math.max(4, workflow.stages.length + 1))}
        testId="workflow-settings-stages"
      />
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

export function CloneWorkflowForm({
  workflow,
  onCloned,
  onCancel,
}: {
  workflow: Workflow;
  onCloned: (w: Workflow) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(`${workflow.name} (copy)`);
  const [slug, setSlug] = useState('');
  const clone = useCloneWorkflow();
  const { fieldErrors, general, capture, clear, setFieldErrors } = useFormErrors();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    clear();
    if (!name.trim()) return setFieldErrors({ name: 'Required.' });
    if (slug && !SLUG_RE.test(slug)) return setFieldErrors({ slug: SLUG_MESSAGE });
    clone.mutate(
      { id: workflow.id, input: { name: name.trim(), ...(slug ? { slug } : {}) } },
      { onSuccess: onCloned, onError: capture },
    );
  };
  return (
    <form className="form" onSubmit={submit} noValidate data-testid="workflow-clone-form">
      {general && (
        <Alert kind="error" testId="form-error">
          {general}
        </Alert>
      )}
      <WorkflowNameField
        label="Name of the copy"
        value={name}
        onChange={setName}
        error={errorFor(fieldErrors, 'name')}
        testId="clone-name"
      />
      <WorkflowSlugField
        value={slug}
        onChange={setSlug}
        error={errorFor(fieldErrors, 'slug')}
        name={name}
        testId="clone-slug"
      />
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
