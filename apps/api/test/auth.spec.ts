import assert from 'node:assert/strict';
import { ADMIN, createTestDb, startApp, type TestApp } from './support/app';
import { request as httpRequest } from 'node:http';
import { Client, newUser } from './support/http';

/** A POST with a Host header of our choosing (fetch always sends the URL's host), as a rebound page's request arrives. */
function postWithHost(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; body: any }> {
  const u = new URL(url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const isProblem = (r: { headers: Headers }) =>
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);

describe('first-run setup', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { adminUsername: null, adminPassword: null } });
  });
  afterAll(() => t.close());

  test('validates, creates the first user once and logs it in, then 409', async () => {
    const c = new Client(t.url);
    const before = await c.get('/auth/setup');
    assert.equal(before.status, 200);
    assert.deepEqual(before.body, { needed: true });
    const bad = await c.post('/auth/setup', { username: 'owner', password: 'short' });
    assert.equal(bad.status, 400);
    assert.deepEqual(
      bad.body.errors.map((e: { field: string }) => e.field),
      ['password'],
    );
    const r = await c.post('/auth/setup', { username: 'owner', password: 'owner-password' });
    assert.equal(r.status, 201);
    assert.equal(r.body.username, 'owner');
    assert.equal(typeof r.body.id, 'number');
    const me = await c.get('/auth/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.username, 'owner');
    assert.equal(me.body.is_admin, true);
    const again = await new Client(t.url).post('/auth/setup', { username: 'other', password: 'other-password' });
    assert.equal(again.status, 409);
    isProblem(again);
    assert.deepEqual(
      (await new Client(t.url).get('/auth/setup')).body,
      { needed: false },
      'anyone may ask; the answer is only a boolean',
    );
  });
});

describe('first-run setup and DNS rebinding', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({
      config: { adminUsername: null, adminPassword: null, allowedOrigins: ['https://studio.example.com'] },
    });
  });
  afterAll(() => t.close());

  test('a page under another host name (rebound to this server) cannot create the first user; localhost, IPs and ALLOWED_ORIGINS hosts can', async () => {
    const port = new URL(t.url).port;
    const rebound = {
      host: `evil.example:${port}`,
      origin: `http://evil.example:${port}`,
      'sec-fetch-site': 'same-origin',
    };
    const r = await postWithHost(
      t.url,
      '/auth/setup',
      { username: 'attacker', password: 'attacker-password' },
      rebound,
    );
    assert.equal(r.status, 403, JSON.stringify(r.body));
    assert.equal(r.body.code, 'origin.untrusted_host');
    assert.deepEqual((await new Client(t.url).get('/auth/setup')).body, { needed: true });
    for (const host of ['studio.example.com', `localhost:${port}`, `[::1]:${port}`]) {
      const ok = await postWithHost(t.url, '/auth/setup', { username: 'owner', password: 'owner-password' }, { host });
      assert.equal(ok.status, host === 'studio.example.com' ? 201 : 409, `${host}: ${JSON.stringify(ok.body)}`);
    }
  });
});

describe('auth', () => {
  let t: TestApp;
  let admin: Client;
  beforeAll(async () => {
    t = await startApp();
    admin = new Client(t.url);
    await admin.login(ADMIN.username, ADMIN.password);
  });
  afterAll(() => t.close());

  test('login sets an HttpOnly SameSite=Lax session cookie and /auth/me answers', async () => {
    const c = new Client(t.url);
    const r = await c.post('/auth/login', ADMIN);
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body).sort(), ['id', 'is_admin', 'username']);
    const cookie = r.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^sid=/);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Path=\//);
    assert.doesNotMatch(cookie, /Secure/, 'plain http: no Secure flag');
    assert.equal((await c.get('/auth/me')).status, 200);
  });

  test('wrong password and unknown user get the same 401 body', async () => {
    const a = await new Client(t.url).post('/auth/login', { username: ADMIN.username, password: 'wrong-password' });
    const b = await new Client(t.url).post('/auth/login', { username: 'nobody-here', password: 'wrong-password' });
    assert.equal(a.status, 401);
    assert.equal(b.status, 401);
    isProblem(a);
    const strip = (x: Record<string, unknown>) => ({ ...x, request_id: undefined });
    assert.deepEqual(strip(a.body), strip(b.body));
    assert.equal(a.headers.get('set-cookie'), null);
  });

  test('login with a missing field is a 400 with field errors', async () => {
    const r = await new Client(t.url).post('/auth/login', { username: 'x' });
    assert.equal(r.status, 400);
    assert.ok(r.body.errors.some((e: { field: string }) => e.field === 'password'));
  });

  test('the session id is regenerated at login', async () => {
    const c = new Client(t.url);
    await c.login(ADMIN.username, ADMIN.password);
    const first = c.cookie;
    await c.login(ADMIN.username, ADMIN.password);
    assert.notEqual(c.cookie, first);
    const old = new Client(t.url);
    old.cookie = first;
    assert.equal((await old.get('/auth/me')).status, 401);
  });

  test('logout destroys the session on the server: a replayed cookie is 401', async () => {
    const c = new Client(t.url);
    await c.login(ADMIN.username, ADMIN.password);
    const saved = c.cookie;
    const r = await c.post('/auth/logout');
    assert.equal(r.status, 204);
    const replay = new Client(t.url);
    replay.cookie = saved;
    const me = await replay.get('/auth/me');
    assert.equal(me.status, 401);
    isProblem(me);
  });

  test('personal access tokens: created, used as bearer, listed without the secret, revoked', async () => {
    const created = await admin.post('/auth/tokens', { name: 'ci' });
    assert.equal(created.status, 201);
    assert.match(created.body.token, /^aws_/);
    const bearer = new Client(t.url);
    bearer.bearer = created.body.token;
    const me = await bearer.get('/auth/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.username, ADMIN.username);
    const list = await admin.get('/auth/tokens');
    assert.equal(list.status, 200);
    assert.ok(list.body.some((x: { id: number }) => x.id === created.body.id));
    assert.ok(!list.text.includes(created.body.token));
    assert.ok(!list.text.includes('token_hash'));
    assert.equal((await admin.delete(`/auth/tokens/${created.body.id}`)).status, 204);
    assert.equal((await bearer.get('/auth/me')).status, 401);
    assert.equal((await admin.delete(`/auth/tokens/${created.body.id}`)).status, 404);
    const garbage = new Client(t.url);
    garbage.bearer = 'aws_not-a-real-token';
    assert.equal((await garbage.get('/auth/me')).status, 401);
  });

  test('protected routes answer 401 problem+json to anonymous callers', async () => {
    const r = await new Client(t.url).get('/studio/api/users');
    assert.equal(r.status, 401);
    isProblem(r);
    assert.equal(r.body.status, 401);
    assert.ok(r.body.title && r.body.detail && r.body.type);
  });

  test('studio pages redirect anonymous users to the login page', async () => {
    const r = await new Client(t.url).get('/studio/models?x=1');
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), '/studio/login?next=%2Fstudio%2Fmodels%3Fx%3D1');
  });

  test('admins manage users; others get 403', async () => {
    const bob = await newUser(t.url, admin, 'bob');
    const token = await bob.post('/auth/tokens', { name: 'bob-script' });
    const bobBearer = new Client(t.url);
    bobBearer.bearer = token.body.token;
    assert.equal((await bobBearer.get('/auth/me')).status, 200, 'the token works (and is now remembered)');
    assert.equal((await bob.get('/studio/api/users')).status, 403);
    assert.equal((await bob.post('/studio/api/users', { username: 'eve', password: 'password-123' })).status, 403);
    const list = await admin.get('/studio/api/users');
    assert.equal(list.status, 200);
    assert.ok(!list.text.includes('password'));
    const dup = await admin.post('/studio/api/users', { username: 'BOB', password: 'password-123' });
    assert.equal(dup.status, 409);
    const short = await admin.post('/studio/api/users', { username: 'carl', password: 'x' });
    assert.equal(short.status, 400);
    const bobId = list.body.find((u: { username: string }) => u.username === 'bob').id;
    assert.equal((await admin.delete(`/studio/api/users/${bobId}`)).status, 204);
    assert.equal((await bob.get('/auth/me')).status, 401, 'a deleted user is logged out');
    assert.equal((await bobBearer.get('/auth/me')).status, 401, "a deleted user's token stops working at once");
  });

  test('deleting a user who owns records: 409 naming them, then ?cascade=true deletes them all', async () => {
    const dan = await newUser(t.url, admin, 'dan');
    const model = await dan.post('/studio/api/models', {
      label: 'M',
      provider: 'custom',
      model_id: 'm-1',
      api_base: 'http://127.0.0.1:9/v1',
    });
    assert.equal(model.status, 201, model.text);
    const agent = await dan.post('/studio/api/agents', { name: 'A', role: 'writer', model_id: model.body.id });
    assert.equal(agent.status, 201, agent.text);
    const pack = await dan.post('/studio/api/workflows', { name: 'Dan pack', domain: 'pdlc' });
    const g = await dan.put(`/studio/api/workflows/${pack.body.id}/graph`, {
      nodes: [{ node_key: 'a', type: 'agent', agent_id: agent.body.id, stage_label: 'discover' }],
      edges: [{ from_node: 'start', to_node: 'a' }],
    });
    assert.equal(g.status, 200, g.text);
    assert.equal(
      (await dan.put('/agent/workflows/dans', { domain: 'pdlc', stage: 'discover', pack_id: pack.body.id })).status,
      200,
    );
    const danId = (await admin.get('/studio/api/users')).body.find(
      (u: { username: string }) => u.username === 'dan',
    ).id;

    const refused = await admin.delete(`/studio/api/users/${danId}`);
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.code, 'user.owns_records');
    assert.match(refused.body.detail, /dan owns 1 project, 1 pack, 1 agent, 1 model\. Delete with \?cascade=true/);
    assert.equal((await dan.get('/auth/me')).status, 200, 'nothing was deleted');

    assert.equal((await admin.delete(`/studio/api/users/${danId}?cascade=true`)).status, 204);
    assert.equal((await dan.get('/auth/me')).status, 401);
    assert.ok(!(await admin.get('/studio/api/users')).body.some((u: { username: string }) => u.username === 'dan'));
  });
});

describe('request rules', () => {
  let t: TestApp;
  let c: Client;
  beforeAll(async () => {
    t = await startApp();
    c = new Client(t.url);
    await c.login(ADMIN.username, ADMIN.password);
  });
  afterAll(() => t.close());

  test('malformed JSON is a 400 problem', async () => {
    const r = await c.post('/auth/tokens', '{"name": ');
    assert.equal(r.status, 400);
    isProblem(r);
  });

  test('unknown fields are rejected with errors', async () => {
    const r = await c.post('/auth/tokens', { name: 'x', is_admin: true });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.errors, [{ field: 'is_admin', message: 'is_admin is not a known field' }]);
  });

  test('a body that is not an object, or holds NUL, is a 400', async () => {
    assert.equal((await c.post('/auth/tokens', [1, 2])).status, 400);
    const nul = await c.post('/auth/tokens', { name: 'a\u0000b' });
    assert.equal(nul.status, 400);
    assert.equal(nul.body.errors[0].field, 'name');
  });

  test('oversized bodies are 413', async () => {
    const r = await c.post('/auth/tokens', { name: 'x'.repeat(1024 * 1024 + 10) });
    assert.equal(r.status, 413);
    isProblem(r);
  });

  test('non-JSON state changes are 415', async () => {
    const r = await c.post('/auth/tokens', 'name=x', { 'content-type': 'text/plain' });
    assert.equal(r.status, 415);
    isProblem(r);
  });

  test('a cross-site Origin on a state change is 403', async () => {
    const r = await c.post('/auth/tokens', { name: 'x' }, { origin: 'https://evil.example' });
    assert.equal(r.status, 403);
    const same = await c.post('/auth/tokens', { name: 'x' }, { origin: t.url });
    assert.equal(same.status, 201);
  });

  test('unknown routes are a 404 problem; malformed ids a 400', async () => {
    const r = await c.get('/no/such/route');
    assert.equal(r.status, 404);
    isProblem(r);
    assert.equal((await c.delete('/auth/tokens/abc')).status, 400);
  });

  test('security headers and a request id are set', async () => {
    const r = await c.get('/health');
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'ok');
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.ok(r.headers.get('content-security-policy'));
    assert.ok(r.headers.get('x-request-id'));
    assert.equal(r.headers.get('x-powered-by'), null);
  });

  test('/openapi.json is an OpenAPI 3.1 document and /docs is served', async () => {
    const r = await c.get('/openapi.json');
    assert.equal(r.status, 200);
    assert.equal(r.body.openapi, '3.1.0');
    assert.ok(r.body.paths['/auth/login']);
    assert.equal((await c.get('/docs')).status, 200);
  });
});

describe('login rate limiting', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ config: { loginLimitPerUser: 3, loginLimitPerClient: 100 } });
  });
  afterAll(() => t.close());

  test('too many attempts for one username are 429 with Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(
        (await new Client(t.url).post('/auth/login', { username: 'target', password: 'guess-' + i })).status,
      );
    }
    assert.deepEqual(statuses, [401, 401, 401, 429]);
    const r = await new Client(t.url).post('/auth/login', { username: 'target', password: 'again' });
    assert.equal(r.status, 429);
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
    isProblem(r);
    // another username from the same client is not blocked by the per-user limit
    assert.equal(
      (await new Client(t.url).post('/auth/login', { username: 'someone-else', password: 'x' })).status,
      401,
    );
  });
});

describe('restart', () => {
  test('sessions, tokens and users survive a restart', async () => {
    const db = await createTestDb();
    const first = await startApp({ db });
    const c = new Client(first.url);
    await c.login(ADMIN.username, ADMIN.password);
    const tok = (await c.post('/auth/tokens', { name: 'keep' })).body.token;
    await first.stop();
    const second = await startApp({ db });
    try {
      const again = new Client(second.url);
      again.cookie = c.cookie;
      assert.equal((await again.get('/auth/me')).status, 200);
      const b = new Client(second.url);
      b.bearer = tok;
      assert.equal((await b.get('/auth/me')).status, 200);
    } finally {
      await second.close();
    }
  });
});
