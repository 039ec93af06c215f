import { useMutation, useQuery } from '@tanstack/react-query';
import type { DemoRequest } from '../../../shared/api-types';
import { demoApi, demoKeys } from '../api/demo-api';

export function useDemoPacks() {
  return useQuery({
    queryKey: demoKeys.packs(),
    queryFn: ({ signal }) => demoApi.packs(signal),
    select: (r) => (r.workflows ?? r.packs ?? []).filter((p) => p.is_system),
    staleTime: 5 * 60_000,
  });
}

export function useDemoChat() {
  return useMutation({ mutationFn: (body: DemoRequest) => demoApi.send(body) });
}
