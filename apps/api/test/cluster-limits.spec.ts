/**
 * Limits in cluster mode (docs/OPERATIONS.md, "Limits"): two API processes (ROLE=api) on one database
 * share the login and demo rate limits, the per-user stream cap and the per-client demo-run cap, and a
 * token revoked (or a password changed) on one is refused on the other at once. With ROLE=all nothing
 * of this touches the database. No test here waits for a turn to finish: in cluster mode turns may run
 * on workers that these tests do not start, so the streams held open are only ever cut by the client.
 */
import assert from 'node:assert/strict';
import { Client as PgClient } from 'pg';
import { ADMIN, createTestDb, startApp, type TestApp } from './support/app';
import { FakeLlm } from './support/fake-llm';
import { Client, newUser } from './support/http';
import { readStream } from './support/sse';

interface OpenStream {
  status: number;
  headers: Headers;
  body?: any;
  close(): void;
}

/** Opens an event stream and keeps it open (draining it) until close(); a refusal comes back with its body. */
async function openStream(url: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const ctrl = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ctrl.signal });
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, close: () => {} };
  }
  const reader = res.body!.getReader();
  void (async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // aborted by close()
    }
  })();
  return { status: res.status, headers: res.headers, close: () => ctrl.abort() };
}

/** Retries `attempt` until `ok` holds of its result (a release is a DELETE the server sends after the client left). */
async function eventually<T>(attempt: () => Promise<T>, ok: (r: T) => boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  for (;;) {
    const r = await attempt();
    if (ok(r)) return r;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function sql<T = any>(databaseUrl: string, text: string, params: unknown[] = []): Promise<T[]> {
  const c = new PgClient({ connectionString: databaseUrl });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

describe('cluster mode: two API processes share the limits', () => {
  let fake: FakeLlm;
  let a: TestApp;
  let b: TestApp;
  let adminA: Client;
  let adminB: Client;

  beforeAll(async () => {
    fake = await FakeLlm.start({ defaultTurn: { hang: true } });
    const config = {
      role: 'api' as const,
      loginLimitPerUser: 3,
      loginLimitPerClient: 1000,
      demoLimitPerMinute: 6,
      maxStreamsPerUser: 2,
      maxRunsPerUser: 10,
      maxDemoRunsPerClient: 1,
      llm: { provider: 'custom', model: 'fake', apiBase: fake.openaiBase, apiKey: 'sk-x' },
    };
    a = await startApp({ config });
    b = await startApp({ db: a.db, config });
    adminA = new Client(a.url);
    await adminA.login(ADMIN.username, ADMIN.password);
    adminB = new Client(b.url);
    adminB.cookie = adminA.cookie; // sessions live in the shared database
  });
  afterAll(async () => {
    await b?.stop();
    await a?.close();
    await fake?.close();
  });

  test('login attempts per username: the limit holds across both processes (429 with Retry-After)', async () => {
    const statuses: number[] = [];
    for (const t of [a, b, a, b]) {
      const r = await new Client(t.url).post('/auth/login', { username: 'target', password: 'guess' });
      statuses.push(r.status);
      if (r.status === 429) assert.ok(Number(r.headers.get('retry-after')) >= 1, 'Retry-After');
    }
    assert.deepEqual(statuses, [401, 401, 401, 429]);
    const again = await new Client(a.url).post('/auth/login', { username: 'TARGET', password: 'guess' });
    assert.equal(again.status, 429, 'blocked on the first process too, whatever the case');
    assert.equal(again.body.code, 'rate_limited');
    assert.ok(Number(again.headers.get('retry-after')) >= 1);
    // another username is not blocked
    assert.equal((await new Client(b.url).post('/auth/login', { username: 'someone', password: 'x' })).status, 401);
  });

  test('running demo turns per client: the cap holds across both processes', async () => {
    // the model hangs, so the demo turn on A keeps its slot
    const first = await openStream(`${a.url}/agent/stream?message=hi`);
    try {
      assert.equal(first.status, 200);
      const second = await new Client(b.url).post('/agent/demo', { message: 'hi' });
      assert.equal(second.status, 429, second.text);
      assert.equal(second.body.code, 'runs.too_many');
      assert.equal(second.headers.get('retry-after'), '5');
    } finally {
      first.close();
    }
  });

  test('demo requests per client: the rate limit holds across both processes', async () => {
    // the test before spent 2 of the 6 per minute; refused bodies (400) count too, and run no turn
    const statuses: number[] = [];
    for (const t of [a, b, a, b, a]) {
      statuses.push((await new Client(t.url).post('/agent/demo', { message: 'x', agent_id: 1 })).status);
    }
    assert.deepEqual(statuses, [400, 400, 400, 400, 429]);
    const limited = await new Client(b.url).post('/agent/demo', { message: 'x' });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, 'rate_limited');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  });

  test('open streams per user: the cap holds across both processes, and a closed stream frees its slot', async () => {
    const user = await newUser(a.url, adminA, 'streamer');
    const systemPack = (await user.get('/agent/workflows')).body.workflows.find(
      (w: { slug: string }) => w.slug === 'pdlc',
    ).pack_id;
    for (const slug of ['s1', 's2', 's3', 's4'])
      assert.equal(
        (await user.put(`/agent/workflows/${slug}`, { domain: 'pdlc', stage: 'discover', pack_id: systemPack })).status,
        200,
      );
    const headers = { cookie: user.cookie! };
    const one = await openStream(`${a.url}/agent/stream?project_slug=s1&message=hi`, headers);
    const two = await openStream(`${b.url}/agent/stream?project_slug=s2&message=hi`, headers);
    const held = [one, two];
    try {
      assert.deepEqual([one.status, two.status], [200, 200]);
      for (const t of [a, b]) {
        const third = await openStream(`${t.url}/agent/stream?project_slug=s3&message=hi`, headers);
        assert.equal(third.status, 429, JSON.stringify(third.body));
        assert.equal(third.body.code, 'stream.too_many');
        assert.equal(third.headers.get('retry-after'), '5');
      }
      const rows = await sql(a.db.databaseUrl!, `SELECT key FROM limit_slots WHERE key LIKE 'stream:u:%'`);
      assert.equal(rows.length, 2);

      one.close(); // A's stream: its slot is released, so B takes one
      const again = await eventually(
        () => openStream(`${b.url}/agent/stream?project_slug=s3&message=hi`, headers),
        (r) => r.status !== 429,
        'a slot freed on A to be taken on B',
      );
      held.push(again);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      const full = await openStream(`${a.url}/agent/stream?project_slug=s4&message=hi`, headers);
      assert.equal(full.status, 429);
    } finally {
      for (const s of held) s.close();
    }
  });

  test("a process's expired slots do not count (a dead process's streams end with its lease)", async () => {
    const user = await newUser(a.url, adminA, 'orphaned');
    const me = (await user.get('/auth/me')).body;
    const systemPack = (await user.get('/agent/workflows')).body.workflows.find(
      (w: { slug: string }) => w.slug === 'pdlc',
    ).pack_id;
    await user.put(`/agent/workflows/o1`, { domain: 'pdlc', stage: 'discover', pack_id: systemPack });
    // two slots left by a process that died a while ago: their lease ran out
    await sql(
      a.db.databaseUrl!,
      `INSERT INTO limit_slots (id, key, expires_at) SELECT gen_random_uuid(), $1, now() - interval '1 second' FROM generate_series(1, 2)`,
      [`stream:u:${me.id}`],
    );
    const s = await openStream(`${b.url}/agent/stream?project_slug=o1&message=hi`, { cookie: user.cookie! });
    s.close();
    assert.equal(s.status, 200, JSON.stringify(s.body));
  });

  test('a token revoked on one process is refused on the other at once', async () => {
    const token = (await adminA.post('/auth/tokens', { name: 'ci' })).body;
    const onB = new Client(b.url);
    onB.bearer = token.token;
    assert.equal((await onB.get('/auth/me')).status, 200); // now cached on B
    assert.equal((await onB.get('/auth/me')).status, 200);
    assert.equal((await adminA.delete(`/auth/tokens/${token.id}`)).status, 204);
    assert.equal((await onB.get('/auth/me')).status, 401);
  });

  test("a password changed or a user deleted on one process: the user's tokens are refused on the other at once", async () => {
    const bob = await newUser(a.url, adminA, 'bob-cluster');
    const bobId = (await bob.get('/auth/me')).body.id;
    const onB = new Client(b.url);
    onB.bearer = (await bob.post('/auth/tokens', { name: 'script' })).body.token;
    assert.equal((await onB.get('/auth/me')).status, 200);
    assert.equal((await adminA.patch(`/studio/api/users/${bobId}`, { password: 'a-new-password-1' })).status, 200);
    assert.equal((await onB.get('/auth/me')).status, 401);

    // an admin demoted on B: their token, cached on A, is no admin's any more
    const carol = await newUser(a.url, adminA, 'carol-cluster');
    const carolId = (await carol.get('/auth/me')).body.id;
    assert.equal((await adminA.patch(`/studio/api/users/${carolId}`, { is_admin: true })).status, 200);
    const onA = new Client(a.url);
    onA.bearer = (await carol.post('/auth/tokens', { name: 'script' })).body.token;
    assert.equal((await onA.get('/auth/me')).body.is_admin, true);
    assert.equal((await adminB.patch(`/studio/api/users/${carolId}`, { is_admin: false })).status, 200);
    assert.equal((await onA.get('/auth/me')).body.is_admin, false);
    // deleted on B: refused on A
    assert.equal((await adminB.delete(`/studio/api/users/${carolId}`)).status, 204);
    assert.equal((await onA.get('/auth/me')).status, 401);
  });
});

describe('ROLE=all keeps its limits in memory', () => {
  test('logins, demo requests and streams write nothing to the shared tables', async () => {
    const t = await startApp({ config: { loginLimitPerUser: 2, demoLimitPerMinute: 2 } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await new Client(t.url).post('/auth/login', { username: 'x', password: 'y' })).status);
      assert.deepEqual(statuses, [401, 401, 429]);
      // a demo stream (the offline model answers at once): a stream slot and a demo-run slot
      const s = await readStream(`${t.url}/agent/stream?message=hi`);
      assert.equal(s.events.at(-1)?.event, 'close');
      assert.equal((await new Client(t.url).post('/agent/demo', { message: 'x', agent_id: 1 })).status, 400);
      assert.equal((await new Client(t.url).post('/agent/demo', { message: 'x', agent_id: 1 })).status, 429);
      const [counts] = await sql(
        t.db.databaseUrl!,
        'SELECT (SELECT count(*) FROM rate_limit_hits)::int AS hits, (SELECT count(*) FROM limit_slots)::int AS slots',
      );
      assert.deepEqual(counts, { hits: 0, slots: 0 });
    } finally {
      await t.close();
    }
  });

  test('control: two ROLE=all processes on one database do not share them (what cluster mode fixes)', async () => {
    const db = await createTestDb();
    const one = await startApp({ db, config: { loginLimitPerUser: 2 } });
    const two = await startApp({ db, config: { loginLimitPerUser: 2 } });
    try {
      const statuses: number[] = [];
      for (const t of [one, two, one, two])
        statuses.push((await new Client(t.url).post('/auth/login', { username: 'x', password: 'y' })).status);
      assert.deepEqual(statuses, [401, 401, 401, 401]);
      const admin = new Client(one.url);
      await admin.login(ADMIN.username, ADMIN.password);
      const token = (await admin.post('/auth/tokens', { name: 'ci' })).body;
      const onTwo = new Client(two.url);
      onTwo.bearer = token.token;
      assert.equal((await onTwo.get('/auth/me')).status, 200);
      assert.equal((await admin.delete(`/auth/tokens/${token.id}`)).status, 204);
      assert.equal((await onTwo.get('/auth/me')).status, 200, "still in the other process's token cache");
    } finally {
      await two.stop();
      await one.close();
    }
  });
});
