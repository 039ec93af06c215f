// Calls behind the workspace page: packs, projects, workflow state, history, files, runs (docs/API.md, §6).
import type {
  AgentWorkflowsResponse,
  ApprovalDecision,
  RunInfo,
  BindWorkflowInput,
  FileContent,
  FileRevision,
  HistoryPage,
  Project,
  ProjectInput,
  WorkflowState,
  WorkspaceFile,
} from '../../../shared/api-types';
import { encodePath, http, withQuery } from '../../../shared/http';

export const runKeys = {
  packs: () => ['agent-packs'] as const,
  projects: () => ['projects', 'list'] as const,
  state: (slug: string) => ['workflow-state', slug] as const,
  history: (slug: string) => ['history', slug] as const,
  files: (slug: string) => ['files', slug] as const,
  fileList: (slug: string) => ['files', slug, 'list'] as const,
  file: (slug: string, path: string) => ['files', slug, 'content', path] as const,
  fileAt: (slug: string, path: string, revision: number) => ['files', slug, 'content', path, revision] as const,
  revisions: (slug: string, path: string) => ['files', slug, 'revisions', path] as const,
};

const projectsBase = '/studio/api/projects';

export const runApi = {
  packs: (signal?: AbortSignal) => http.get<AgentWorkflowsResponse>('/agent/workflows', { signal }),
  projects: (signal?: AbortSignal) => http.get<Project[]>(projectsBase, { signal }),
  createProject: (input: ProjectInput) => http.post<Project>(projectsBase, input),
  renameProject: (slug: string, name: string) =>
    http.patch<Project>(`${projectsBase}/${encodeURIComponent(slug)}`, { name }),
  deleteProject: (slug: string) => http.del<void>(`${projectsBase}/${encodeURIComponent(slug)}`),
  deleteFile: (slug: string, path: string) =>
    http.del<void>(`${projectsBase}/${encodeURIComponent(slug)}/files/${encodePath(path)}`),
  state: (slug: string, signal?: AbortSignal) =>
    http.get<WorkflowState>(`/agent/workflows/${encodeURIComponent(slug)}`, { signal }),
  bind: (slug: string, input: BindWorkflowInput) =>
    http.put<WorkflowState>(`/agent/workflows/${encodeURIComponent(slug)}`, input),
  history: (slug: string, before: number | string | null, signal?: AbortSignal) =>
    http.get<HistoryPage>(withQuery(`/agent/history/${encodeURIComponent(slug)}`, { before, limit: 50 }), { signal }),
  files: (slug: string, signal?: AbortSignal) =>
    http.get<WorkspaceFile[]>(`${projectsBase}/${encodeURIComponent(slug)}/files`, { signal }),
  file: (slug: string, path: string, signal?: AbortSignal) =>
    http.get<FileContent>(`${projectsBase}/${encodeURIComponent(slug)}/files/${encodePath(path)}`, { signal }),
  fileAt: (slug: string, path: string, revision: number, signal?: AbortSignal) =>
    http.get<FileContent>(
      withQuery(`${projectsBase}/${encodeURIComponent(slug)}/files/${encodePath(path)}`, { revision }),
      { signal },
    ),
  revisions: (slug: string, path: string, signal?: AbortSignal) =>
    http.get<FileRevision[] | { revisions: FileRevision[] }>(
      `${projectsBase}/${encodeURIComponent(slug)}/files/${encodePath(path)}/revisions`,
      { signal },
    ),
  run: (runId: string) => http.get<RunInfo>(`/agent/runs/${encodeURIComponent(runId)}`),
  /** the decision on a run's pending tool call → 202 {run_id}; the run goes on (docs/API.md, "Per-tool approval") */
  decide: (runId: string, callId: string, decision: ApprovalDecision) =>
    http.post<{ run_id: string }>(
      `/agent/runs/${encodeURIComponent(runId)}/approvals/${encodeURIComponent(callId)}`,
      decision,
    ),
  /** a new run from one node of a finished run → 202 {run_id} (docs/API.md, "Rerun from a node") */
  rerun: (runId: string, body: { node_key: string; restore_workspace?: boolean }) =>
    http.post<{ run_id: string }>(`/agent/runs/${encodeURIComponent(runId)}/rerun`, body),
  cancelRun: (runId: string) => http.post<unknown>(`/agent/runs/${encodeURIComponent(runId)}/cancel`),
};

export interface StreamParams {
  message: string;
  project_slug: string;
  pack_id?: number;
  advance?: boolean;
  node_key?: string;
}

export function streamUrl(p: StreamParams): string {
  return withQuery('/agent/stream', {
    message: p.message,
    project_slug: p.project_slug,
    pack_id: p.pack_id,
    advance: p.advance ? 1 : undefined,
    node_key: p.node_key,
  });
}
