import { useState, type FormEvent } from 'react';
import type { Skill, SkillInput, AllowedTool } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { Field, errorFor, otherErrors } from '../../../shared/components/field';
import { FormActions, type ResourceFormProps } from '../../../shared/components/resource-page';
import { useFormErrors } from '../../../shared/use-form-errors';
import { ToolAllowlistField } from '../../mcp-servers/components/tool-allowlist-field';
import { ApprovalChoiceField, approvalToSave } from '../../mcp-servers/components/approval-choice-field';
import { useSaveSkill } from '../hooks/use-skills';

const FIELDS = ['name', 'description', 'prompt_md', 'tool_allowlist', 'tools_requiring_approval', 'artifact_hint'];

export function SkillForm({ record, readOnly, onDone }: ResourceFormProps<Skill>) {
  const [name, setName] = useState(record?.name ?? '');
  const [description, setDescription] = useState(record?.description ?? '');
  const [prompt, setPrompt] = useState(record?.prompt_md ?? '');
  const [tools, setTools] = useState<AllowedTool[]>(record?.tool_allowlist ?? []);
  const [approval, setApproval] = useState<AllowedTool[]>(record?.tools_requiring_approval ?? []);
  const [artifactHint, setArtifactHint] = useState(record?.artifact_hint ?? '');
  const save = useSaveSkill();
  const { fieldErrors, general, capture, clear, setFieldErrors } = useFormErrors();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (readOnly) return;
    clear();
    if (!name.trim()) return setFieldErrors({ name: 'Required.' });
    const input: SkillInput = {
      name: name.trim(),
      description: description.trim(),
      prompt_md: prompt,
      tool_allowlist: tools,
      tools_requiring_approval: approvalToSave(tools, approval),
      artifact_hint: artifactHint.trim(),
    };
    save.mutate({ id: record?.id ?? null, input }, { onSuccess: (s) => onDone(s), onError: capture });
  };

  const extra = otherErrors(fieldErrors, FIELDS);
  return (
    <form className="form" onSubmit={submit} noValidate data-testid="skill-form">
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
        <Field label="Description" error={errorFor(fieldErrors, 'description')}>
          <input name="description" value={description} onChange={(e) => setDescription(e.target.value)} />
        </Field>
        <Field
          label="Prompt (Markdown)"
          error={errorFor(fieldErrors, 'prompt_md')}
          hint="Appended to the agent's system prompt."
        >
          <textarea
            name="prompt_md"
            rows={10}
            className="mono"
            value={prompt}
            onChange={(e) => setPrompt(e.target.value)}
          />
        </Field>
        <ToolAllowlistField
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
          label="Artifact hint"
          error={errorFor(fieldErrors, 'artifact_hint')}
          hint="The file this skill usually produces, e.g. docs/prd.md"
        >
          <input name="artifact_hint" value={artifactHint} onChange={(e) => setArtifactHint(e.target.value)} />
        </Field>
      </fieldset>
      <FormActions readOnly={readOnly} pending={save.isPending} onCancel={() => onDone()} />
    </form>
  );
}
