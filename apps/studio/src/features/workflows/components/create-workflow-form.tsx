import { useState, type FormEvent } from 'react';
import type { Workflow, WorkflowInput } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { Field, errorFor, otherErrors } from '../../../shared/components/field';
import { useFormErrors } from '../../../shared/use-form-errors';
import { DOMAIN_STAGES } from '../api/workflows-api';
import { useCreateWorkflow } from '../hooks/use-workflows';
import { parseStages, SLUG_MESSAGE, SLUG_RE, stagesProblem } from '../workflow-form-rules';
import { WorkflowDescriptionField, WorkflowNameField, WorkflowSlugField, WorkflowStagesField } from './workflow-fields';

export function CreateWorkflowForm({
  onCreated,
  onCancel,
}: {
  onCreated: (w: Workflow) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [description, setDescription] = useState('');
  const [domainKind, setDomainKind] = useState<'pdlc' | 'sdlc' | 'custom'>('pdlc');
  const [customDomain, setCustomDomain] = useState('');
  const [stagesText, setStagesText] = useState('');
  const create = useCreateWorkflow();
  const { fieldErrors, general, capture, clear, setFieldErrors } = useFormErrors();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    clear();
    const local: Record<string, string> = {};
    const domain = domainKind === 'custom' ? customDomain.trim() : domainKind;
    const stages = parseStages(stagesText);
    if (!name.trim()) local.name = 'Required.';
    if (slug && !SLUG_RE.test(slug)) local.slug = SLUG_MESSAGE;
    if (domainKind === 'custom') {
      if (!/^[a-z0-9-]+$/.test(domain)) local.domain = 'Lowercase letters, digits and dashes.';
      else if (domain === 'pdlc' || domain === 'sdlc') local.domain = 'Pick it from the list instead.';
      const problem = stagesProblem(stages);
      if (problem) local.stages = problem;
    }
    if (Object.keys(local).length) return setFieldErrors(local);
    const input: WorkflowInput = { name: name.trim(), domain };
    if (slug) input.slug = slug;
    if (description.trim()) input.description = description.trim();
    if (domainKind === 'custom') input.stages = stages;
    create.mutate(input, { onSuccess: onCreated, onError: capture });
  };

  const extra = otherErrors(fieldErrors, ['name', 'slug', 'description', 'domain', 'stages']);
  return (
    <form className="form" onSubmit={submit} noValidate data-testid="workflow-create-form">
      {general && (
        <Alert kind="error" testId="form-error">
          {general}
          {extra.length > 0 && (
            <ul>
              {extra.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          )}
        </Alert>
      )}
      <WorkflowNameField value={name} onChange={setName} error={errorFor(fieldErrors, 'name')} />
      <WorkflowSlugField value={slug} onChange={setSlug} error={errorFor(fieldErrors, 'slug')} name={name} />
      <WorkflowDescriptionField
        value={description}
        onChange={setDescription}
        error={errorFor(fieldErrors, 'description')}
      />
      <Field label="Domain" error={domainKind !== 'custom' ? errorFor(fieldErrors, 'domain') : undefined}>
        <select name="domain" value={domainKind} onChange={(e) => setDomainKind(e.target.value as typeof domainKind)}>
          <option value="pdlc">pdlc — product development</option>
          <option value="sdlc">sdlc — software development</option>
          <option value="custom">custom…</option>
        </select>
      </Field>
      {domainKind === 'custom' ? (
        <>
          <Field label="Custom domain" error={errorFor(fieldErrors, 'domain')} required hint="e.g. research">
            <input
              name="custom_domain"
              value={customDomain}
              onChange={(e) => setCustomDomain(e.target.value.toLowerCase())}
            />
          </Field>
          <WorkflowStagesField
            value={stagesText}
            onChange={setStagesText}
            error={errorFor(fieldErrors, 'stages')}
            hint="In order, one per line or comma-separated."
            rows={4}
            placeholder={'collect\nanalyse\nreport'}
          />
        </>
      ) : (
        <div className="field">
          <span className="field-label">Stages</span>
          <span className="chips">
            {DOMAIN_STAGES[domainKind].map((s) => (
              <span key={s} className="chip">
                {s}
              </span>
            ))}
          </span>
        </div>
      )}
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={create.isPending} data-testid="form-save">
          {create.isPending ? 'Creating…' : 'Create and open editor'}
        </button>
      </div>
    </form>
  );
}
