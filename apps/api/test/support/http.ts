/** A tiny HTTP client for API tests: real fetch, a cookie jar of one session, JSON in and out. */
export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class Client {
  cookie: string | null = null;
  bearer: string | null = null;

  constructor(readonly base: string) {}

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Res<T>> {
    const h: Record<string, string> = { ...headers };
    if (this.cookie) h.cookie = this.cookie;
    if (this.bearer) h.authorization = `Bearer ${this.bearer}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] = h['content-type'] ?? 'application/json';
    }
    const res = await fetch(this.base + path, { method, headers: h, body: payload, redirect: 'manual' });
    const set = res.headers.get('set-cookie');
    if (set) {
      const m = /(?:^|,\s*)sid=([^;]*)/.exec(set);
      if (m) this.cookie = m[1] ? `sid=${m[1]}` : null;
    }
    const text = await res.text();
    let parsed: unknown = text;
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }
  put<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', path, body, headers);
  }
  patch<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PATCH', path, body, headers);
  }
  delete<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, undefined, headers);
  }

  async login(username: string, password: string) {
    const r = await this.post('/auth/login', { username, password });
    if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
    return r;
  }
}

/** Creates a user through the admin API and returns a client logged in as that user. */
export async function newUser(
  base: string,
  admin: Client,
  username: string,
  password = 'password-123',
): Promise<Client> {
  const r = await admin.post('/studio/api/users', { username, password });
  if (r.status !== 201) throw new Error(`create user failed: ${r.status} ${r.text}`);
  const c = new Client(base);
  await c.login(username, password);
  return c;
}
