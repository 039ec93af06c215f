// TanStack Query hooks shared by the models, skills and agents features.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ResourceApi, ResourceKeys } from './resource-api';

export function useResourceList<T>(keys: ResourceKeys, api: Pick<ResourceApi<T, never>, 'list'>) {
  return useQuery({ queryKey: keys.list(), queryFn: ({ signal }) => api.list(signal) });
}

export function useSaveResource<T extends { id: number }, I>(keys: ResourceKeys, api: ResourceApi<T, I>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number | null; input: I }) =>
      id === null ? api.create(input) : api.update(id, input),
    onSuccess: (saved) => {
      qc.setQueryData(keys.detail(saved.id), saved);
      return qc.invalidateQueries({ queryKey: keys.all });
    },
  });
}

export function useDeleteResource(keys: ResourceKeys, api: Pick<ResourceApi<unknown, never>, 'remove'>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.remove(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.all }),
  });
}
