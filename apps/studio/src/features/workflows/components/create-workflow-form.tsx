import { useState, type FormEvent } from 'react';
import type { Workflow, WorkflowInput } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { Field, errorFor, otherErrors } from '../../../shared/components/field';
import { slugify } from '../../../shared/format';
import { useFormErrors } from '../../../shared/use-form-errors';
import { DOMAIN_STAGES } from '../api/workflows-api';
import { useCreateWorkflow } from '../hooks/use-workflows';

const SLUG_RE = /^[a-z0-9-]{1,64}$/;

export function parseStages(text: string): string[] {
  return text
    .split(/[\n,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function CreateWorkflowForm({ onCreated, onCancel }: { onCreated: (w: Workflow) => void; onCancel: () => void }) {
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
    if (slug && !SLUG_RE.test(slug)) local.slug = 'Lowercase letters, digits and dashes (at most 64).';
    if (domainKind === 'custom') {
      if (!/^[a-z0-9-]+$/.test(domain)) local.domain = 'Lowercase letters, digits and dashes.';
      else if (domain === 'pdlc' || domain === 'sdlc') local.domain = 'Pick it from the list instead.';
      if (stages.length === 0) local.stages = 'List at least one stage.';
      else if (new Set(stages).size !== stages.length) local.stages = 'Stage names must be unique.';
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
      <Field label="Name" error={errorFor(fieldErrors, 'name')} required>
        <input name="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} autoFocus />
      </Field>
      <Field label="Slug" error={errorFor(fieldErrors, 'slug')} hint={`Optional. Derived from the name when empty${name ? `: ${slugify(name) || '…'}` : ''}.`}>
        <input name="slug" value={slug} onChange={(e) => setSlug(e.target.value.toLowerCase())} maxLength={64} pattern="[a-z0-9\-]{1,64}" />
      </Field>
      <Field label="Description" error={errorFor(fieldErrors, 'description')}>
        <textarea name="description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} />
      </Field>
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
            <input name="custom_domain" value={customDomain} onChange={(e) => setCustomDomain(e.target.value.toLowerCase())} />
          </Field>
          <Field label="Stages" error={errorFor(fieldErrors, 'stages')} required hint="In order, one per line or comma-separated.">
            <textarea name="stages" rows={4} value={stagesText} onChange={(e) => setStagesText(e.target.value)} placeholder={'collect\nanalyse\nreport'} />
          </Field>
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
