// The fields the workflow forms share (create, settings, clone): one input each, with the same name,
// limits and hint wherever it appears. Tests find them by `testId` where a form gives one.
import { Field } from '../../../shared/components/field';
import { slugify } from '../../../shared/format';

interface FieldProps {
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  testId?: string;
}

/** The workflow's name; it takes the focus when the form opens. */
export function WorkflowNameField({ value, onChange, error, testId, label = 'Name' }: FieldProps & { label?: string }) {
  return (
    <Field label={label} error={error} required>
      <input
        name="name"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        maxLength={200}
        autoFocus
        data-testid={testId}
      />
    </Field>
  );
}

/** An optional slug (lower-cased as typed); the hint shows the one the API derives from `name`. */
export function WorkflowSlugField({ value, onChange, error, testId, name }: FieldProps & { name: string }) {
  return (
    <Field
      label="Slug"
      error={error}
      hint={`Optional. Derived from the name when empty${name ? `: ${slugify(name) || '…'}` : ''}.`}
    >
      <input
        name="slug"
        value={value}
        onChange={(e) => onChange(e.target.value.toLowerCase())}
        maxLength={64}
        pattern="[a-z0-9\-]{1,64}"
        data-testid={testId}
      />
    </Field>
  );
}

export function WorkflowDescriptionField({ value, onChange, error }: FieldProps) {
  return (
    <Field label="Description" error={error}>
      <textarea name="description" rows={2} value={value} onChange={(e) => onChange(e.target.value)} />
    </Field>
  );
}

/** The stage list, typed one per line (see parseStages). */
export function WorkflowStagesField({
  value,
  onChange,
  error,
  testId,
  hint,
  rows,
  placeholder,
}: FieldProps & { hint: string; rows: number; placeholder?: string }) {
  return (
    <Field label="Stages" error={error} required hint={hint}>
      <textarea
        name="stages"
        rows={rows}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
        data-testid={testId}
      />
    </Field>
  );
}
