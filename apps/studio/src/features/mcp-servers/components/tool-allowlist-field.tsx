// The "Allowed tools" checkboxes of the skill and agent forms: the workspace tools, then the tools
// discovered on the user's MCP servers (server/tool). Allowed names no server lists right now (a server
// down or deleted) stay listed, so saving the form does not drop them silently.
import type { AllowedTool } from '../../../shared/api-types';
import { CheckboxGroup } from '../../../shared/components/field';
import { TOOL_DESCRIPTIONS, TOOL_NAMES } from '../../../shared/tools';
import { useDiscoveredTools } from '../hooks/use-mcp-servers';

export function ToolAllowlistField({
  legend = 'Allowed tools',
  value,
  onChange,
  error,
  disabled,
}: {
  legend?: string;
  value: AllowedTool[];
  onChange: (next: AllowedTool[]) => void;
  error?: string | undefined;
  disabled?: boolean;
}) {
  const discovered = useDiscoveredTools();
  const known = new Set<string>([...TOOL_NAMES, ...discovered.map((t) => t.name)]);
  const unlisted = value.filter((t) => !known.has(t));
  const options = [
    ...TOOL_NAMES.map((t) => ({ value: t, label: <code>{t}</code>, hint: TOOL_DESCRIPTIONS[t] })),
    ...discovered.map((t) => ({ value: t.name, label: <code>{t.name}</code>, hint: t.description })),
    ...unlisted.map((t) => ({
      value: t,
      label: (
        <>
          <code>{t}</code> <span className="muted">(not listed by its server now)</span>
        </>
      ),
    })),
  ];
  return (
    <CheckboxGroup<AllowedTool>
      legend={legend}
      name="tool_allowlist"
      options={options}
      value={value}
      onChange={(next) => onChange(options.map((o) => o.value).filter((v) => next.includes(v)))}
      error={error}
      disabled={disabled}
    />
  );
}
