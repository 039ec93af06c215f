// The public demo (docs/API.md): no login, system packs only, nothing stored.
import type { AgentWorkflowsResponse, DemoRequest, DemoResponse } from '../../../shared/api-types';
import { http } from '../../../shared/http';

export const demoKeys = { packs: () => ['demo', 'packs'] as const };

export const demoApi = {
  packs: (signal?: AbortSignal) =>
    http.get<AgentWorkflowsResponse>('/agent/workflows', { signal, redirectOn401: false }),
  send: (body: DemoRequest) => http.post<DemoResponse>('/agent/demo', body, { redirectOn401: false }),
};
