import { useQueries, useQuery } from '@tanstack/react-query';
import type { McpServer, McpServerInput } from '../../../shared/api-types';
import { useDeleteResource, useResourceList, useSaveResource } from '../../../shared/resource-hooks';
import { listMcpTools, mcpServerKeys, mcpServersApi, mcpToolKeys } from '../api/mcp-servers-api';

export const useMcpServers = () => useResourceList<McpServer>(mcpServerKeys, mcpServersApi);
export const useSaveMcpServer = () => useSaveResource<McpServer, McpServerInput>(mcpServerKeys, mcpServersApi);
export const useDeleteMcpServer = () => useDeleteResource(mcpServerKeys, mcpServersApi);

/** One server's tools (connects through the API; a failure is shown, not retried). */
export const useMcpTools = (id: number | null) =>
  useQuery({
    queryKey: mcpToolKeys(id ?? 0),
    queryFn: ({ signal }) => listMcpTools(id!, signal),
    enabled: id !== null,
    retry: false,
    staleTime: 60_000,
  });

/** Every visible server's tools, for allowlists: `server/tool` names with their descriptions. */
export function useDiscoveredTools(): { name: string; description: string }[] {
  const servers = useMcpServers();
  const lists = useQueries({
    queries: (servers.data ?? []).map((s) => ({
      queryKey: mcpToolKeys(s.id),
      queryFn: ({ signal }: { signal: AbortSignal }) => listMcpTools(s.id, signal),
      retry: false,
      staleTime: 60_000,
    })),
  });
  return lists.flatMap((q) =>
    (q.data?.tools ?? []).map((t) => ({ name: t.qualified_name, description: t.description })),
  );
}
