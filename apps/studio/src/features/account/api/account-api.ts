// Personal access tokens (`/auth/tokens`) and, for admins, users (`/studio/api/users`) — docs/API.md.
import type { AccessToken, CreatedAccessToken, UserRecord } from '../../../shared/api-types';
import { http, withQuery } from '../../../shared/http';

export const accountKeys = {
  tokens: () => ['tokens'] as const,
  users: () => ['users'] as const,
};

export interface NewUser {
  username: string;
  password: string;
  is_admin: boolean;
}

export const accountApi = {
  tokens: (signal?: AbortSignal) => http.get<AccessToken[]>('/auth/tokens', { signal }),
  createToken: (name: string) => http.post<CreatedAccessToken>('/auth/tokens', { name }),
  revokeToken: (id: number) => http.del<void>(`/auth/tokens/${id}`),
  users: (signal?: AbortSignal) => http.get<UserRecord[]>('/studio/api/users', { signal }),
  createUser: (input: NewUser) => http.post<UserRecord>('/studio/api/users', input),
  updateUser: (id: number, patch: { password?: string; is_admin?: boolean }) =>
    http.patch<UserRecord>(`/studio/api/users/${id}`, patch),
  deleteUser: (id: number, cascade: boolean) =>
    http.del<void>(withQuery(`/studio/api/users/${id}`, { cascade: cascade ? 'true' : undefined })),
};
