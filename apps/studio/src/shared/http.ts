// The studio's one HTTP client: same-origin cookies, JSON bodies, problem+json errors as ApiError,
// and a 401 on a studio page sends the user to the login page (docs/API.md, §3).
import type { FieldError, Problem } from './api-types';

export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly code: string | undefined;
  readonly errors: FieldError[];

  constructor(problem: Problem) {
    super(problem.detail || problem.title || `Request failed (${problem.status})`);
    this.name = 'ApiError';
    this.status = problem.status;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.code = problem.code;
    this.errors = Array.isArray(problem.errors) ? problem.errors : [];
  }

  /** First message per field, e.g. `{ label: 'must not be empty' }`. */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const e of this.errors) if (!(e.field in out)) out[e.field] = e.message;
    return out;
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

/** A readable one-line message for any thrown value. */
export function errorMessage(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 0) return e.message;
    const head = e.detail || e.title || `Request failed (${e.status})`;
    return head;
  }
  if (e instanceof Error) return e.message;
  return String(e);
}

type UnauthorizedHandler = (nextPath: string) => void;

let onUnauthorized: UnauthorizedHandler = (nextPath) => {
  window.location.assign(loginPath(nextPath));
};

/** The router installs a handler that navigates without a full reload. */
export function setUnauthorizedHandler(handler: UnauthorizedHandler): void {
  onUnauthorized = handler;
}

export function loginPath(nextPath: string): string {
  return `/studio/login?next=${encodeURIComponent(nextPath)}`;
}

export function currentPath(): string {
  return window.location.pathname + window.location.search;
}

/** Only same-site absolute paths are honoured as `next` (no open redirect). */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/studio';
  if (next.startsWith('/studio/login')) return '/studio';
  return next;
}

export interface RequestOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Default true: a 401 redirects to the login page. Off for login, /auth/me and the public demo. */
  redirectOn401?: boolean;
}

/** Turns a non-2xx response into an ApiError (problem+json, or a synthesised problem). */
export async function problemFromResponse(res: Response): Promise<ApiError> {
  const ct = res.headers.get('content-type') ?? '';
  let body: unknown = null;
  try {
    body = ct.includes('json') ? await res.json() : await res.text();
  } catch {
    body = null;
  }
  if (body && typeof body === 'object') {
    const b = body as Partial<Problem> & { message?: unknown };
    return new ApiError({
      type: typeof b.type === 'string' ? b.type : 'about:blank',
      title: typeof b.title === 'string' ? b.title : res.statusText || 'Error',
      status: typeof b.status === 'number' ? b.status : res.status,
      detail: typeof b.detail === 'string' ? b.detail : typeof b.message === 'string' ? b.message : undefined,
      code: typeof b.code === 'string' ? b.code : undefined,
      errors: Array.isArray(b.errors) ? b.errors : undefined,
    });
  }
  return new ApiError({
    type: 'about:blank',
    title: res.statusText || 'Error',
    status: res.status,
    detail: typeof body === 'string' && body && body.length < 300 ? body : undefined,
  });
}

export function handleUnauthorized(status: number, opts?: RequestOptions): void {
  if (status !== 401 || opts?.redirectOn401 === false) return;
  const path = currentPath();
  if (path.startsWith('/studio/login') || path.startsWith('/demo')) return;
  onUnauthorized(path);
}

export async function request<T>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
  const init: RequestInit = { method, credentials: 'same-origin', headers, signal: opts.signal };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    throw new ApiError({
      type: 'about:blank',
      title: 'Network error',
      status: 0,
      detail: 'Could not reach the server. Check your connection and try again.',
    });
  }
  if (!res.ok) {
    handleUnauthorized(res.status, opts);
    throw await problemFromResponse(res);
  }
  if (res.status === 204) return undefined as T;
  const ct = res.headers.get('content-type') ?? '';
  if (!ct.includes('json')) return (await res.text()) as unknown as T;
  return (await res.json()) as T;
}

export const http = {
  get: <T>(path: string, opts?: RequestOptions) => request<T>('GET', path, undefined, opts),
  post: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('POST', path, body, opts),
  put: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('PUT', path, body, opts),
  patch: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>('PATCH', path, body, opts),
  del: <T = void>(path: string, opts?: RequestOptions) => request<T>('DELETE', path, undefined, opts),
};

/** Builds `path?k=v` skipping undefined/null/'' values. */
export function withQuery(path: string, params: Record<string, string | number | boolean | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** Encodes a workspace path segment by segment so `/` stays a separator. */
export function encodePath(p: string): string {
  return p.split('/').map(encodeURIComponent).join('/');
}
