// CRUD calls and query-key factories for the studio's list/create/update/delete resources (docs/API.md).
import { http } from './http';

export interface ResourceApi<T, I> {
  list: (signal?: AbortSignal) => Promise<T[]>;
  get: (id: number, signal?: AbortSignal) => Promise<T>;
  create: (input: I) => Promise<T>;
  update: (id: number, input: I) => Promise<T>;
  remove: (id: number) => Promise<void>;
}

export function resourceApi<T, I>(base: string): ResourceApi<T, I> {
  return {
    list: (signal) => http.get<T[]>(base, { signal }),
    get: (id, signal) => http.get<T>(`${base}/${id}`, { signal }),
    create: (input) => http.post<T>(base, input),
    update: (id, input) => http.put<T>(`${base}/${id}`, input),
    remove: (id) => http.del(`${base}/${id}`),
  };
}

export function resourceKeys<N extends string>(name: N) {
  const all = [name] as const;
  return {
    all,
    list: () => [...all, 'list'] as const,
    detail: (id: number) => [...all, 'detail', id] as const,
  };
}

export type ResourceKeys = ReturnType<typeof resourceKeys>;
