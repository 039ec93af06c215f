// TanStack Query hooks for the workspace page.
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BindWorkflowInput, FileRevision, ProjectInput } from '../../../shared/api-types';
import { isApiError } from '../../../shared/http';
import { runApi, runKeys } from '../api/run-api';

export function usePacks() {
  return useQuery({
    queryKey: runKeys.packs(),
    queryFn: ({ signal }) => runApi.packs(signal),
    select: (r) => r.workflows ?? r.packs ?? [],
  });
}

export function useProjects() {
  return useQuery({ queryKey: runKeys.projects(), queryFn: ({ signal }) => runApi.projects(signal) });
}

export function useCreateProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: ProjectInput) => runApi.createProject(input),
    onSuccess: () => qc.invalidateQueries({ queryKey: runKeys.projects() }),
  });
}

export function useWorkflowState(slug: string | null) {
  return useQuery({
    queryKey: runKeys.state(slug ?? ''),
    queryFn: ({ signal }) => runApi.state(slug!, signal),
    enabled: !!slug,
    retry: (n, e) => n < 1 && !(isApiError(e) && e.status < 500),
  });
}

export function useBindWorkflow() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ slug, input }: { slug: string; input: BindWorkflowInput }) => runApi.bind(slug, input),
    onSuccess: (state, { slug }) => {
      qc.setQueryData(runKeys.state(slug), state);
      void qc.invalidateQueries({ queryKey: runKeys.projects() });
    },
  });
}

export function useHistory(slug: string | null) {
  return useInfiniteQuery({
    queryKey: runKeys.history(slug ?? ''),
    queryFn: ({ pageParam, signal }) => runApi.history(slug!, pageParam, signal),
    initialPageParam: null as number | string | null,
    getNextPageParam: (last) =>
      last.next_before === null || last.next_before === undefined || last.messages.length === 0
        ? undefined
        : last.next_before,
    enabled: !!slug,
  });
}

export function useFiles(slug: string | null) {
  return useQuery({
    queryKey: runKeys.fileList(slug ?? ''),
    queryFn: ({ signal }) => runApi.files(slug!, signal),
    enabled: !!slug,
  });
}

export function useFile(slug: string | null, path: string | null) {
  return useQuery({
    queryKey: runKeys.file(slug ?? '', path ?? ''),
    queryFn: ({ signal }) => runApi.file(slug!, path!, signal),
    enabled: !!slug && !!path,
    retry: false,
  });
}

export function useRevisions(slug: string | null, path: string | null, enabled: boolean) {
  return useQuery({
    queryKey: runKeys.revisions(slug ?? '', path ?? ''),
    queryFn: ({ signal }) => runApi.revisions(slug!, path!, signal),
    enabled: enabled && !!slug && !!path,
    select: (r): FileRevision[] => (Array.isArray(r) ? r : (r?.revisions ?? [])),
    retry: false,
  });
}

export function useRenameProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ slug, name }: { slug: string; name: string }) => runApi.renameProject(slug, name),
    onSuccess: () => qc.invalidateQueries({ queryKey: runKeys.projects() }),
  });
}

export function useDeleteProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (slug: string) => runApi.deleteProject(slug),
    // stop reads of the project in flight, so none of them comes back 404 after the delete
    onMutate: (slug: string) => qc.cancelQueries({ predicate: (q) => q.queryKey.includes(slug) }),
    // The page leaves the project first (see ProjectActions); its cached data is dropped after that, so
    // nothing asks the server for a project that no longer exists.
    onSuccess: () => qc.invalidateQueries({ queryKey: runKeys.projects() }),
  });
}

export function useDeleteFile(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (path: string) => runApi.deleteFile(slug, path),
    onMutate: (path: string) => qc.cancelQueries({ queryKey: runKeys.file(slug, path) }),
    onSuccess: (_r, path) => {
      // the file is gone: drop its content and revisions instead of asking for them again (a 404)
      qc.removeQueries({ queryKey: runKeys.file(slug, path), exact: true });
      qc.removeQueries({ queryKey: runKeys.revisions(slug, path) });
      return qc.invalidateQueries({ queryKey: runKeys.fileList(slug) });
    },
  });
}

/** A file as it was at `revision` (revisions never change, so this is cached for good). */
export function useFileAt(slug: string | null, path: string | null, revision: number | null) {
  return useQuery({
    queryKey: runKeys.fileAt(slug ?? '', path ?? '', revision ?? 0),
    queryFn: ({ signal }) => runApi.fileAt(slug!, path!, revision!, signal),
    enabled: !!slug && !!path && revision !== null,
    staleTime: Infinity,
    retry: false,
  });
}

/** Forget everything cached about a project (after it was deleted and the page left it). */
export function useForgetProject() {
  const qc = useQueryClient();
  return (slug: string) => {
    qc.removeQueries({ queryKey: runKeys.state(slug) });
    qc.removeQueries({ queryKey: runKeys.history(slug) });
    qc.removeQueries({ queryKey: runKeys.files(slug) });
  };
}
