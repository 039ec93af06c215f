// Pick one of your projects, or create one bound to the current pack.
import { useState, type FormEvent } from 'react';
import type { Project } from '../../../shared/api-types';
import { errorFor } from '../../../shared/components/field';
import { slugify } from '../../../shared/format';
import { errorMessage, isApiError } from '../../../shared/http';

export function ProjectPicker({
  projects,
  loading,
  value,
  onSelect,
  onCreate,
  creating,
  createError,
}: {
  projects: readonly Project[];
  loading: boolean;
  value: string | null;
  onSelect: (slug: string | null) => void;
  onCreate: (input: { slug: string; name: string }) => Promise<unknown>;
  creating: boolean;
  createError: unknown;
}) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugTouched, setSlugTouched] = useState(false);
  const effectiveSlug = slugTouched ? slug : slugify(name);
  const fieldErrors = isApiError(createError) ? createError.fieldErrors() : {};

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!/^[a-z0-9-]{1,64}$/.test(effectiveSlug)) return;
    onCreate({ slug: effectiveSlug, name: name.trim() || effectiveSlug }).then(
      () => {
        setOpen(false);
        setName('');
        setSlug('');
        setSlugTouched(false);
      },
      () => undefined,
    );
  };

  const known = value === null || projects.some((p) => p.slug === value);
  return (
    <div className="project-picker">
      <label className="inline-field">
        <span>Project</span>
        <select
          value={value ?? ''}
          onChange={(e) => onSelect(e.target.value || null)}
          disabled={loading}
          data-testid="project-select"
        >
          <option value="">
            {loading ? 'Loading…' : projects.length ? '— choose a project —' : '— no projects yet —'}
          </option>
          {projects.map((p) => (
            <option key={p.id} value={p.slug}>
              {p.name && p.name !== p.slug ? `${p.name} (${p.slug})` : p.slug}
            </option>
          ))}
          {!known && value && <option value={value}>{value}</option>}
        </select>
      </label>
      <button
        type="button"
        className="btn btn-small"
        onClick={() => setOpen((v) => !v)}
        aria-expanded={open}
        data-testid="project-new"
      >
        New project
      </button>
      {open && (
        <form className="project-create" onSubmit={submit} data-testid="project-create-form">
          <label className="inline-field">
            <span>Name</span>
            <input
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="My product"
              autoFocus
              data-testid="project-name"
              maxLength={200}
            />
          </label>
          <label className="inline-field">
            <span>Slug</span>
            <input
              value={effectiveSlug}
              onChange={(e) => {
                setSlugTouched(true);
                setSlug(e.target.value.toLowerCase());
              }}
              pattern="[a-z0-9\-]{1,64}"
              required
              aria-invalid={
                !!errorFor(fieldErrors, 'slug') || (effectiveSlug !== '' && !/^[a-z0-9-]{1,64}$/.test(effectiveSlug))
              }
              data-testid="project-slug"
            />
          </label>
          <button
            type="submit"
            className="btn btn-primary btn-small"
            disabled={creating || !effectiveSlug}
            data-testid="project-create"
          >
            {creating ? 'Creating…' : 'Create'}
          </button>
          {createError != null && (
            <span className="field-error" role="alert">
              {errorFor(fieldErrors, 'slug') ?? errorMessage(createError)}
            </span>
          )}
        </form>
      )}
    </div>
  );
}
