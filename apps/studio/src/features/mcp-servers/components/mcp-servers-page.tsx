// /studio/mcp-servers — MCP tool servers whose tools agents call as server/tool (docs/API.md).
import { ResourcePage } from '../../../shared/components/resource-page';
import { Badge } from '../../../shared/components/badge';
import { useDocumentTitle } from '../../../shared/use-document-title';
import { useDeleteMcpServer, useMcpServers } from '../hooks/use-mcp-servers';
import { McpServerForm } from './mcp-server-form';

export function McpServersPage() {
  useDocumentTitle('MCP servers');
  const servers = useMcpServers();
  const del = useDeleteMcpServer();
  return (
    <ResourcePage
      title="MCP servers"
      subtitle="Tool servers (Model Context Protocol, Streamable HTTP). Allow their tools in a skill or an agent as server/tool."
      noun="MCP server"
      testId="mcp-servers"
      query={servers}
      nameOf={(s) => s.name}
      Form={McpServerForm}
      deleteMutation={del}
      emptyText="Add an MCP server by its Streamable HTTP URL, e.g. https://mcp.example.com/mcp."
      columns={[
        { header: 'Name', cell: (s) => <strong>{s.name}</strong> },
        { header: 'URL', cell: (s) => <code>{s.url}</code> },
        {
          header: 'Headers',
          cell: (s) =>
            s.header_names.length ? (
              <Badge kind="success">{s.header_names.join(', ')}</Badge>
            ) : (
              <span className="muted">none</span>
            ),
        },
      ]}
    />
  );
}
