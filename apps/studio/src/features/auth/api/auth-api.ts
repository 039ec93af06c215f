// Session auth calls (docs/API.md). None of them redirect on 401: the callers decide.
import type { Credentials, SetupState, User } from '../../../shared/api-types';
import { http } from '../../../shared/http';

export const authKeys = {
  all: ['auth'] as const,
  me: () => [...authKeys.all, 'me'] as const,
  setup: () => [...authKeys.all, 'setup'] as const,
};

export const authApi = {
  me: (signal?: AbortSignal) => http.get<User>('/auth/me', { signal, redirectOn401: false }),
  login: (c: Credentials) => http.post<User>('/auth/login', c, { redirectOn401: false }),
  setupState: (signal?: AbortSignal) => http.get<SetupState>('/auth/setup', { signal, redirectOn401: false }),
  setup: (c: Credentials) => http.post<User>('/auth/setup', c, { redirectOn401: false }),
  logout: () => http.post<void>('/auth/logout', undefined, { redirectOn401: false }),
};
