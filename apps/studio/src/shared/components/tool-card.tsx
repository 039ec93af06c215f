// A tool call as a collapsible card: name, arguments, and the result once it arrives.
import { prettyJson } from '../format';
import { Icon } from './icon';

export function ToolCard({
  name,
  args,
  result,
  pending,
}: {
  name: string;
  args: unknown;
  result: { ok: boolean; output?: unknown; error?: string } | null;
  pending?: boolean;
}) {
  const state = result === null ? (pending ? 'running' : 'no result') : result.ok ? 'ok' : 'failed';
  const argText = prettyJson(args);
  const outText = result ? prettyJson(result.output) : '';
  const firstArg =
    args && typeof args === 'object'
      ? Object.values(args as Record<string, unknown>)[0]
      : typeof args === 'string'
        ? args
        : undefined;
  return (
    <details
      className={`tool-card tool-${state.replace(' ', '-')}`}
      data-testid="tool-card"
      data-tool={name}
      data-state={state}
    >
      <summary>
        <Icon name="tool" size={14} className="tool-icon" />
        <code className="tool-name">{name || 'tool'}</code>
        {typeof firstArg === 'string' && (
          <span className="tool-arg">{firstArg.length > 60 ? `${firstArg.slice(0, 59)}…` : firstArg}</span>
        )}
        <span className={`tool-state tool-state-${state.replace(' ', '-')}`}>
          {state === 'running' ? 'running…' : state}
        </span>
      </summary>
      <div className="tool-body">
        <div className="tool-section">
          <span className="tool-label">Arguments</span>
          <pre>{argText || '—'}</pre>
        </div>
        {result && (
          <div className="tool-section">
            <span className="tool-label">{result.ok ? 'Result' : 'Error'}</span>
            {result.error && <pre className="tool-error">{result.error}</pre>}
            {outText && <pre>{outText}</pre>}
          </div>
        )}
      </div>
    </details>
  );
}
