import { useState, type FormEvent } from 'react';
import type { McpServer, McpServerInput } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { Field, errorFor, otherErrors } from '../../../shared/components/field';
import { FormActions, type ResourceFormProps } from '../../../shared/components/resource-page';
import { Icon } from '../../../shared/components/icon';
import { useFormErrors } from '../../../shared/use-form-errors';
import { parseHeaderLines } from '../api/mcp-servers-api';
import { useSaveMcpServer } from '../hooks/use-mcp-servers';
import { McpToolList } from './mcp-tool-list';

const FIELDS = ['name', 'url', 'headers'];

export function McpServerForm({ record, readOnly, onDone }: ResourceFormProps<McpServer>) {
  const [name, setName] = useState(record?.name ?? '');
  const [url, setUrl] = useState(record?.url ?? '');
  const [headers, setHeaders] = useState('');
  const [clearHeaders, setClearHeaders] = useState(false);
  const save = useSaveMcpServer();
  const { fieldErrors, general, capture, clear, setFieldErrors } = useFormErrors();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (readOnly) return;
    clear();
    const local: Record<string, string> = {};
    if (!name.trim()) local.name = 'Required.';
    if (!url.trim()) local.url = 'Required.';
    const parsed = parseHeaderLines(headers);
    if (typeof parsed === 'string') local.headers = parsed;
    if (Object.keys(local).length) return setFieldErrors(local);

    const input: McpServerInput = { name: name.trim(), url: url.trim() };
    // Header values are write-only: empty keeps the stored ones (unless cleared), text replaces them all.
    if (typeof parsed !== 'string' && Object.keys(parsed).length) input.headers = parsed;
    else if (clearHeaders) input.headers = null;
    save.mutate({ id: record?.id ?? null, input }, { onSuccess: (s) => onDone(s), onError: capture });
  };

  const extra = otherErrors(fieldErrors, FIELDS);
  const stored = record?.header_names ?? [];
  return (
    <form className="form" onSubmit={submit} noValidate data-testid="mcp-server-form">
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
        <Field
          label="Name"
          error={errorFor(fieldErrors, 'name')}
          hint="Lower-case letters, digits and dashes; tools are allowed as name/tool."
          required
        >
          <input name="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={40} autoFocus />
        </Field>
        <Field
          label="URL"
          error={errorFor(fieldErrors, 'url')}
          hint="The Streamable HTTP endpoint, e.g. https://mcp.example.com/mcp"
          required
        >
          <input
            name="url"
            type="url"
            inputMode="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://…"
          />
        </Field>
        {!readOnly && (
          <Field
            label="Headers"
            error={errorFor(fieldErrors, 'headers')}
            hint={
              stored.length
                ? `Stored (encrypted): ${stored.join(', ')}. Leave empty to keep them, or type all headers to replace them.`
                : 'Optional, one "Name: value" per line (e.g. Authorization: Bearer …). Stored encrypted and never shown again.'
            }
          >
            <textarea
              name="headers"
              rows={3}
              className="mono"
              autoComplete="off"
              value={headers}
              onChange={(e) => setHeaders(e.target.value)}
              placeholder={stored.length ? stored.map((h) => `${h}: ••••••••`).join('\n') : 'Authorization: Bearer …'}
            />
          </Field>
        )}
        {!readOnly && stored.length > 0 && (
          <label className="checkbox">
            <input
              type="checkbox"
              name="clear_headers"
              checked={clearHeaders}
              onChange={(e) => setClearHeaders(e.target.checked)}
            />
            <span>Remove the stored headers</span>
          </label>
        )}
        {stored.length > 0 && (
          <p className="muted" data-testid="headers-stored">
            <Icon name="lock" size={14} /> headers stored: {stored.join(', ')}
          </p>
        )}
      </fieldset>
      {record && <McpToolList serverId={record.id} />}
      <FormActions readOnly={readOnly} pending={save.isPending} onCancel={() => onDone()} />
    </form>
  );
}
