// The tools a saved MCP server offers, read through the API (which connects to the server).
import { Alert } from '../../../shared/components/alert';
import { errorMessage } from '../../../shared/http';
import { useMcpTools } from '../hooks/use-mcp-servers';

export function McpToolList({ serverId }: { serverId: number }) {
  const tools = useMcpTools(serverId);
  return (
    <section className="field" data-testid="mcp-tools" aria-live="polite">
      <h3>Tools</h3>
      {tools.isPending && <p className="muted">Connecting…</p>}
      {tools.isError && (
        <Alert kind="error" testId="mcp-tools-error">
          {errorMessage(tools.error)}
        </Alert>
      )}
      {tools.data && tools.data.tools.length === 0 && <p className="muted">This server offers no tools.</p>}
      {tools.data && tools.data.tools.length > 0 && (
        <ul>
          {tools.data.tools.map((t) => (
            <li key={t.name}>
              <code>{t.qualified_name}</code> {t.description && <span className="muted">— {t.description}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
