// Workflow (pack) calls: CRUD, graph, clone, export, import (docs/API.md).
import type {
  CloneWorkflowInput,
  ExportDocument,
  ImportResult,
  SaveGraphInput,
  Workflow,
  WorkflowDetail,
  WorkflowGraph,
  WorkflowInput,
  VersionList,
  WorkflowVersion,
} from '../../../shared/api-types';
import { http, withQuery } from '../../../shared/http';

const base = '/studio/api/workflows';

export const workflowKeys = {
  all: ['workflows'] as const,
  list: () => [...workflowKeys.all, 'list'] as const,
  detail: (id: number) => [...workflowKeys.all, 'detail', id] as const,
  versions: (id: number) => [...workflowKeys.all, 'versions', id] as const,
  version: (id: number, version: number) => [...workflowKeys.all, 'versions', id, version] as const,
};

export const workflowsApi = {
  list: (signal?: AbortSignal) => http.get<Workflow[]>(base, { signal }),
  get: (id: number, signal?: AbortSignal) => http.get<WorkflowDetail>(`${base}/${id}`, { signal }),
  create: (input: WorkflowInput) => http.post<Workflow>(base, input),
  update: (id: number, input: WorkflowInput) => http.put<Workflow>(`${base}/${id}`, input),
  remove: (id: number) => http.del(`${base}/${id}`),
  graph: (id: number, signal?: AbortSignal) => http.get<WorkflowGraph>(`${base}/${id}/graph`, { signal }),
  saveGraph: (id: number, body: SaveGraphInput) => http.put<WorkflowGraph>(`${base}/${id}/graph`, body),
  clone: (id: number, input: CloneWorkflowInput = {}) => http.post<Workflow>(`${base}/${id}/clone`, input),
  export: (id: number) => http.post<ExportDocument>(`${base}/${id}/export`),
  import: (doc: unknown) => http.post<ImportResult>(`${base}/import`, doc),
  versions: (id: number, before: number | null, signal?: AbortSignal) =>
    http.get<VersionList>(withQuery(`${base}/${id}/versions`, { before, limit: 50 }), { signal }),
  version: (id: number, version: number, signal?: AbortSignal) =>
    http.get<WorkflowVersion>(`${base}/${id}/versions/${version}`, { signal }),
  restoreVersion: (id: number, version: number, current: number) =>
    http.post<WorkflowGraph>(`${base}/${id}/versions/${version}/restore`, { version: current }),
};

export const DOMAIN_STAGES: Record<string, string[]> = {
  pdlc: ['discover', 'design', 'develop', 'test', 'deploy', 'iterate'],
  sdlc: ['plan', 'design', 'implement', 'review', 'test', 'release'],
};
