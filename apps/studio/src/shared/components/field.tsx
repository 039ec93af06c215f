// A labelled form control with its hint and the API's field error beside it.
import { useId, type ReactElement, type ReactNode } from 'react';
import { cloneElement, isValidElement } from 'react';

export function Field({
  label,
  error,
  hint,
  children,
  required,
}: {
  label: ReactNode;
  error?: string | undefined;
  hint?: ReactNode;
  required?: boolean;
  children: ReactElement<Record<string, unknown>>;
}) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errId = error ? `${id}-err` : undefined;
  const describedBy = [hintId, errId].filter(Boolean).join(' ') || undefined;
  const control = isValidElement(children)
    ? cloneElement(children, {
        id: (children.props.id as string | undefined) ?? id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': describedBy,
        'aria-required': required || undefined,
      })
    : children;
  const controlId = (isValidElement(children) && (children.props.id as string | undefined)) || id;
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={controlId}>
        {label}
        {required && (
          <span className="required" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      {control}
      {hint && (
        <small id={hintId} className="field-hint">
          {hint}
        </small>
      )}
      {error && (
        <small id={errId} className="field-error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}

/** A group of checkboxes with a legend (tool allowlists, skills). */
export function CheckboxGroup<V extends string | number>({
  legend,
  options,
  value,
  onChange,
  error,
  disabled,
  name,
  emptyText,
}: {
  legend: string;
  options: { value: V; label: ReactNode; hint?: string }[];
  value: V[];
  onChange: (next: V[]) => void;
  error?: string | undefined;
  disabled?: boolean;
  name: string;
  emptyText?: string;
}) {
  const id = useId();
  return (
    <fieldset
      className={`field checkbox-group${error ? ' field-invalid' : ''}`}
      aria-describedby={error ? `${id}-err` : undefined}
    >
      <legend>{legend}</legend>
      {options.length === 0 && <small className="field-hint">{emptyText ?? 'Nothing to choose from yet.'}</small>}
      {options.map((o) => {
        const checked = value.includes(o.value);
        return (
          <label key={String(o.value)} className="checkbox" title={o.hint}>
            <input
              type="checkbox"
              name={name}
              value={String(o.value)}
              checked={checked}
              disabled={disabled}
              onChange={(e) => onChange(e.target.checked ? [...value, o.value] : value.filter((v) => v !== o.value))}
            />
            <span>{o.label}</span>
          </label>
        );
      })}
      {error && (
        <small id={`${id}-err`} className="field-error" role="alert">
          {error}
        </small>
      )}
    </fieldset>
  );
}

/** The error for `field`, also matching nested paths such as `skill_ids[1]`. */
export function errorFor(errors: Record<string, string>, field: string): string | undefined {
  if (errors[field]) return errors[field];
  for (const [k, v] of Object.entries(errors)) {
    if (k.startsWith(`${field}[`) || k.startsWith(`${field}.`)) return v;
  }
  return undefined;
}

/** Errors whose field matches none of `known` (shown at the top of a form). */
export function otherErrors(errors: Record<string, string>, known: string[]): string[] {
  return Object.entries(errors)
    .filter(([k]) => !known.some((f) => k === f || k.startsWith(`${f}[`) || k.startsWith(`${f}.`)))
    .map(([k, v]) => (k ? `${k}: ${v}` : v));
}
