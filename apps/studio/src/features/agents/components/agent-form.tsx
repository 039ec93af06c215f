import { useState, type FormEvent } from 'react';
import type { Agent, AgentInput, AllowedTool } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { CheckboxGroup, Field, errorFor, otherErrors } from '../../../shared/components/field';
import { FormActions, type ResourceFormProps } from '../../../shared/components/resource-page';
import { useFormErrors } from '../../../shared/use-form-errors';
import { ToolAllowlistField } from '../../mcp-servers/components/tool-allowlist-field';
import { ApprovalChoiceField, approvalToSave } from '../../mcp-servers/components/approval-choice-field';
import { providerLabel } from '../../models/api/models-api';
import { useModels } from '../../models/hooks/use-models';
import { useSkills } from '../../skills/hooks/use-skills';
import { useSaveAgent } from '../hooks/use-agents';

const FIELDS = [
  'name',
  'role',
  'system_prompt',
  'model_id',
  'skill_ids',
  'tool_allowlist',
  'tools_requiring_approval',
  'max_iterations',
];

export function AgentForm({ record, readOnly, onDone }: ResourceFormProps<Agent>) {
  const [name, setName] = useState(record?.name ?? '');
  const [role, setRole] = useState(record?.role ?? '');
  const [systemPrompt, setSystemPrompt] = useState(record?.system_prompt ?? '');
  const [modelId, setModelId] = useState<number | null>(record?.model_id ?? null);
  const [skillIds, setSkillIds] = useState<number[]>(record?.skill_ids ?? []);
  const [tools, setTools] = useState<AllowedTool[]>(record?.tool_allowlist ?? []);
  const [approval, setApproval] = useState<AllowedTool[]>(record?.tools_requiring_approval ?? []);
  const [maxIterations, setMaxIterations] = useState(String(record?.max_iterations ?? 8));
  const models = useModels();
  const skills = useSkills();
  const save = useSaveAgent();
  const { fieldErrors, general, capture, clear, setFieldErrors } = useFormErrors();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (readOnly) return;
    clear();
    const local: Record<string, string> = {};
    const iters = Number(maxIterations);
    if (!name.trim()) local.name = 'Required.';
    if (!Number.isInteger(iters) || iters < 1 || iters > 50) local.max_iterations = 'A whole number from 1 to 50.';
    if (Object.keys(local).length) return setFieldErrors(local);
    const input: AgentInput = {
      name: name.trim(),
      role: role.trim(),
      system_prompt: systemPrompt,
      model_id: modelId,
      skill_ids: skillIds,
      tool_allowlist: tools,
      tools_requiring_approval: approvalToSave(tools, approval),
      max_iterations: iters,
    };
    save.mutate({ id: record?.id ?? null, input }, { onSuccess: (a) => onDone(a), onError: capture });
  };

  const extra = otherErrors(fieldErrors, FIELDS);
  return (
    <form className="form" onSubmit={submit} noValidate data-testid="agent-form">
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
        <Field label="Name" error={errorFor(fieldErrors, 'name')} required>
          <input name="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} autoFocus />
        </Field>
        <Field label="Role" error={errorFor(fieldErrors, 'role')} hint="e.g. Product designer">
          <input name="role" value={role} onChange={(e) => setRole(e.target.value)} maxLength={200} />
        </Field>
        <Field label="System prompt" error={errorFor(fieldErrors, 'system_prompt')}>
          <textarea
            name="system_prompt"
            rows={8}
            className="mono"
            value={systemPrompt}
            onChange={(e) => setSystemPrompt(e.target.value)}
          />
        </Field>
        <Field
          label="Model"
          error={errorFor(fieldErrors, 'model_id')}
          hint={models.isError ? 'Could not load models.' : undefined}
        >
          <select
            name="model_id"
            value={modelId === null ? '' : String(modelId)}
            onChange={(e) => setModelId(e.target.value === '' ? null : Number(e.target.value))}
          >
            <option value="">Server default</option>
            {models.data?.map((m) => (
              <option key={m.id} value={m.id}>
                {m.label} — {providerLabel(m.provider)} · {m.model_id}
              </option>
            ))}
            {modelId !== null && models.data && !models.data.some((m) => m.id === modelId) && (
              <option value={modelId}>Model #{modelId}</option>
            )}
          </select>
        </Field>
        <CheckboxGroup<number>
          legend="Skills"
          name="skill_ids"
          options={(skills.data ?? []).map((s) => ({ value: s.id, label: s.name, hint: s.description ?? undefined }))}
          value={skillIds}
          onChange={setSkillIds}
          error={errorFor(fieldErrors, 'skill_ids')}
          disabled={readOnly}
          emptyText={skills.isPending ? 'Loading skills…' : 'No skills yet.'}
        />
        <ToolAllowlistField
          legend="Allowed tools (in addition to the skills' tools)"
          value={tools}
          onChange={setTools}
          error={errorFor(fieldErrors, 'tool_allowlist')}
          disabled={readOnly}
        />
        <ApprovalChoiceField
          tools={tools}
          value={approval}
          onChange={setApproval}
          error={errorFor(fieldErrors, 'tools_requiring_approval')}
          disabled={readOnly}
        />
        <Field
          label="Max iterations"
          error={errorFor(fieldErrors, 'max_iterations')}
          hint="Model calls per turn, 1 – 50."
        >
          <input
            name="max_iterations"
            type="number"
            min={1}
            max={50}
            step={1}
            value={maxIterations}
            onChange={(e) => setMaxIterations(e.target.value)}
          />
        </Field>
      </fieldset>
      <FormActions readOnly={readOnly} pending={save.isPending} onCancel={() => onDone()} />
    </form>
  );
}
