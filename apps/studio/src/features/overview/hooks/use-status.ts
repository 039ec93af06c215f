import { useQuery } from '@tanstack/react-query';
import { statusApi, statusKeys } from '../api/status-api';

export function useAgentStatus() {
  return useQuery({ queryKey: statusKeys.all, queryFn: ({ signal }) => statusApi.get(signal), staleTime: 60_000 });
}
