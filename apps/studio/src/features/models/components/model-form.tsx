import { useState, type FormEvent } from 'react';
import type { Model, ModelInput, ModelProvider } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { Field, errorFor, otherErrors } from '../../../shared/components/field';
import { FormActions, type ResourceFormProps } from '../../../shared/components/resource-page';
import { Icon } from '../../../shared/components/icon';
import { useFormErrors } from '../../../shared/use-form-errors';
import { PROVIDERS } from '../api/models-api';
import { useSaveModel } from '../hooks/use-models';

const FIELDS = ['label', 'provider', 'model_id', 'api_base', 'temperature', 'max_tokens', 'api_key'];

function numOrNull(s: string): number | null {
  const t = s.trim();
  if (t === '') return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : NaN;
}

export function ModelForm({ record, readOnly, onDone }: ResourceFormProps<Model>) {
  const [label, setLabel] = useState(record?.label ?? '');
  const [provider, setProvider] = useState<ModelProvider>(record?.provider ?? 'vendor_a');
  const [modelId, setModelId] = useState(record?.model_id ?? '');
  const [apiBase, setApiBase] = useState(record?.api_base ?? '');
  const [temperature, setTemperature] = useState(record?.temperature != null ? String(record.temperature) : '');
  const [maxTokens, setMaxTokens] = useState(record?.max_tokens != null ? String(record.max_tokens) : '');
  const [apiKey, setApiKey] = useState('');
  const save = useSaveModel();
  const { fieldErrors, general, capture, clear, setFieldErrors } = useFormErrors();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (readOnly) return;
    clear();
    const temp = numOrNull(temperature);
    const max = numOrNull(maxTokens);
    const local: Record<string, string> = {};
    if (!label.trim()) local.label = 'Required.';
    if (!modelId.trim()) local.model_id = 'Required.';
    if (provider === 'custom' && !apiBase.trim()) local.api_base = 'Required for an OpenAI-compatible endpoint.';
    if (Number.isNaN(temp) || (temp !== null && (temp < 0 || temp > 2))) local.temperature = 'A number from 0 to 2.';
    if (Number.isNaN(max) || (max !== null && (!Number.isInteger(max) || max < 1 || max > 200000)))
      local.max_tokens = 'A whole number from 1 to 200000.';
    if (Object.keys(local).length) return setFieldErrors(local);

    const input: ModelInput = { label: label.trim(), provider, model_id: modelId.trim() };
    const base = apiBase.trim();
    // Create: omit empty optionals. Update: send null only to clear a value that was set.
    if (base) input.api_base = base;
    else if (record?.api_base) input.api_base = null;
    if (temp !== null) input.temperature = temp;
    else if (record?.temperature != null) input.temperature = null;
    if (max !== null) input.max_tokens = max;
    else if (record?.max_tokens != null) input.max_tokens = null;
    if (apiKey) input.api_key = apiKey;

    save.mutate({ id: record?.id ?? null, input }, { onSuccess: (saved) => onDone(saved), onError: capture });
  };

  const extra = otherErrors(fieldErrors, FIELDS);
  return (
    <form className="form" onSubmit={submit} noValidate data-testid="model-form">
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
      <fieldset disabled={readOnly} className="fieldset-plain">
        <Field label="Label" error={errorFor(fieldErrors, 'label')} required>
          <input name="label" value={label} onChange={(e) => setLabel(e.target.value)} maxLength={200} autoFocus />
        </Field>
        <Field label="Provider" error={errorFor(fieldErrors, 'provider')} required>
          <select name="provider" value={provider} onChange={(e) => setProvider(e.target.value as ModelProvider)}>
            {PROVIDERS.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Model id"
          error={errorFor(fieldErrors, 'model_id')}
          hint={
            provider === 'vendor_b'
              ? 'e.g. claude-sonnet-4'
              : provider === 'custom'
                ? 'e.g. llama3.1:8b'
                : 'e.g. gpt-4o-mini'
          }
          required
        >
          <input name="model_id" value={modelId} onChange={(e) => setModelId(e.target.value)} maxLength={200} />
        </Field>
        <Field
          label="API base URL"
          error={errorFor(fieldErrors, 'api_base')}
          hint={
            provider === 'custom'
              ? 'Required: e.g. http://localhost:11434/v1'
              : 'Optional: leave empty for the vendor default.'
          }
          required={provider === 'custom'}
        >
          <input
            name="api_base"
            type="url"
            inputMode="url"
            value={apiBase}
            onChange={(e) => setApiBase(e.target.value)}
            placeholder="https://…"
          />
        </Field>
        <div className="field-row">
          <Field label="Temperature" error={errorFor(fieldErrors, 'temperature')} hint="0 – 2">
            <input
              name="temperature"
              type="number"
              min={0}
              max={2}
              step={0.1}
              value={temperature}
              onChange={(e) => setTemperature(e.target.value)}
            />
          </Field>
          <Field label="Max tokens" error={errorFor(fieldErrors, 'max_tokens')} hint="1 – 200000">
            <input
              name="max_tokens"
              type="number"
              min={1}
              max={200000}
              step={1}
              value={maxTokens}
              onChange={(e) => setMaxTokens(e.target.value)}
            />
          </Field>
        </div>
        {!readOnly && (
          <Field
            label="API key"
            error={errorFor(fieldErrors, 'api_key')}
            hint={
              record?.has_api_key
                ? 'A key is stored (encrypted). Leave empty to keep it, or type a new one to replace it.'
                : 'Optional. Stored encrypted and never shown again. Without it the server key for this vendor is used.'
            }
          >
            <input
              name="api_key"
              type="password"
              autoComplete="off"
              value={apiKey}
              onChange={(e) => setApiKey(e.target.value)}
              placeholder={record?.has_api_key ? '•••••••• key stored' : ''}
            />
          </Field>
        )}
        {record?.has_api_key && (
          <p className="muted" data-testid="key-stored">
            <Icon name="lock" size={14} /> key stored
          </p>
        )}
      </fieldset>
      <FormActions readOnly={readOnly} pending={save.isPending} onCancel={() => onDone()} />
    </form>
  );
}
