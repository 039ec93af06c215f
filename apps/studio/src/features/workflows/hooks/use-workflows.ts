import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CloneWorkflowInput, SaveGraphInput, WorkflowInput } from '../../../shared/api-types';
import { workflowKeys, workflowsApi } from '../api/workflows-api';

export function useWorkflows() {
  return useQuery({ queryKey: workflowKeys.list(), queryFn: ({ signal }) => workflowsApi.list(signal) });
}

export function useWorkflow(id: number) {
  return useQuery({
    queryKey: workflowKeys.detail(id),
    queryFn: ({ signal }) => workflowsApi.get(id, signal),
    enabled: Number.isInteger(id) && id > 0,
  });
}

export function useCreateWorkflow() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: WorkflowInput) => workflowsApi.create(input),
    onSuccess: () => qc.invalidateQueries({ queryKey: workflowKeys.list() }),
  });
}

export function useDeleteWorkflow() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => workflowsApi.remove(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: workflowKeys.all }),
  });
}

export function useCloneWorkflow() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number; input?: CloneWorkflowInput }) => workflowsApi.clone(id, input),
    onSuccess: () => qc.invalidateQueries({ queryKey: workflowKeys.list() }),
  });
}

export function useExportWorkflow() {
  return useMutation({ mutationFn: (id: number) => workflowsApi.export(id) });
}

export function useImportWorkflow() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (doc: unknown) => workflowsApi.import(doc),
    onSuccess: () => qc.invalidateQueries(),
  });
}

export function useSaveGraph(id: number) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: SaveGraphInput) => workflowsApi.saveGraph(id, body),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: workflowKeys.detail(id) });
      void qc.invalidateQueries({ queryKey: workflowKeys.list() });
    },
  });
}
