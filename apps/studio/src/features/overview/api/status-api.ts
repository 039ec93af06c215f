import type { AgentStatus } from '../../../shared/api-types';
import { http } from '../../../shared/http';

export const statusKeys = { all: ['agent-status'] as const };

export const statusApi = {
  get: (signal?: AbortSignal) => http.get<AgentStatus>('/agent/status', { signal, redirectOn401: false }),
};
