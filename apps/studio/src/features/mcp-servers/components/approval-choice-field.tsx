// "Requires approval" per allowed tool (skills and agents; docs/API.md, "Per-tool approval"): a call to a
// checked tool stops the run until the user approves, rejects or edits it on the run page.
import type { AllowedTool } from '../../../shared/api-types';

export function ApprovalChoiceField({
  tools,
  value,
  onChange,
  error,
  disabled,
}: {
  /** the record's tool allowlist: only these can require approval */
  tools: readonly AllowedTool[];
  value: readonly AllowedTool[];
  onChange: (next: AllowedTool[]) => void;
  error?: string;
  disabled?: boolean;
}) {
  if (!tools.length) return null;
  const toggle = (t: AllowedTool, on: boolean) =>
    onChange(on ? [...value.filter((x) => x !== t), t] : value.filter((x) => x !== t));
  return (
    <fieldset className="field checkbox-group" data-testid="approval-choice" disabled={disabled}>
      <legend>Requires approval</legend>
      <small className="field-hint">A call to a checked tool waits on the run page until you approve it.</small>
      <div>
        {tools.map((t) => (
          <label key={t} className="checkbox">
            <input
              type="checkbox"
              checked={value.includes(t)}
              onChange={(e) => toggle(t, e.target.checked)}
              data-testid={`requires-approval-${t}`}
            />
            <code>{t}</code>
          </label>
        ))}
      </div>
      {error && (
        <small className="field-error" role="alert">
          {error}
        </small>
      )}
    </fieldset>
  );
}

/** The approval list to save: only names the allowlist still has. */
export const approvalToSave = (tools: readonly AllowedTool[], approval: readonly AllowedTool[]) =>
  approval.filter((t) => tools.includes(t));
