/**
 * Cluster mode (docs/decisions/cluster.md): two API replicas and two workers — the built server as
 * four child processes (ROLE=api, ROLE=worker) on one test database, with the fake model server. Shows
 * a stream started on one API and resumed on the other (nothing lost or repeated), cancel through the
 * other API (a run on each worker, and a queued one), and kill -9 of the worker carrying a multi-tool
 * turn: the other worker takes it over and finishes it with each tool applied once.
 */
import { Client as PgClient } from 'pg';
import { ADMIN, createTestDb, type TestDb } from './support/app';
import { bind, setupPack } from './support/chat-pack';
import { exited, startChildServer, type ChildServer } from './support/child-server';
import { FakeLlm, type FakeTurn } from './support/fake-llm';
import { Client } from './support/http';
import { readStream, type SseEvent } from './support/sse';
import { answer, edit, plan } from './support/three-tool-turn';

/** every process of a cluster shares APP_SECRET (sessions, sealed keys) */
const API_ENV = { ROLE: 'api', APP_SECRET: 'cluster-test-secret' };
const WORKER_ENV = {
  ...API_ENV,
  ROLE: 'worker',
  WORKER_CONCURRENCY: '1',
  WORKER_HEARTBEAT_MS: '300',
  WORKER_DEAD_AFTER_MS: '2000',
  SHUTDOWN_DEADLINE_MS: '2000',
};

let fake: FakeLlm;
let db: TestDb;
let pg: PgClient;
let apiA: ChildServer;
let apiB: ChildServer;
const extra: ChildServer[] = [];
let workers: ChildServer[] = [];
let a: Client;
let b: Client;
let packId: number;
let agentId: number;

const logs = () => [apiA, apiB, ...workers].map((s) => s?.logs.join('') ?? '').join('\n----\n');

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not in time\n${logs()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const slow = (words: number, ms: number): FakeTurn => ({
  text: Array.from({ length: words }, (_, i) => `w${i} `).join(''),
  tokenIntervalMs: ms,
});

/** The stream of `url` with the caller's cookie, handing each event to `onEvent` (true disconnects). */
const stream = (c: Client, url: string, onEvent?: (e: SseEvent) => boolean | void, lastEventId?: string) =>
  readStream(url, {
    headers: { cookie: c.cookie!, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    onEvent,
    timeoutMs: 60_000,
  });

async function workerOf(runId: string): Promise<ChildServer | undefined> {
  const { rows } = await pg.query<{ worker_id: string | null }>('SELECT worker_id FROM runs WHERE id = $1', [runId]);
  const id = rows[0]?.worker_id;
  return workers.find((w) => id?.includes(`-${w.child.pid}-`));
}

/** Starts servers in parallel; every one that started is stopped after the tests, even when another did not. */
async function startAll(envs: Array<Record<string, string>>): Promise<ChildServer[]> {
  const results = await Promise.allSettled(envs.map((env) => startChildServer(db, env)));
  for (const r of results) if (r.status === 'fulfilled') extra.push(r.value);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<ChildServer>).value);
}

beforeAll(async () => {
  fake = await FakeLlm.start();
  db = await createTestDb();
  pg = new PgClient({ connectionString: db.databaseUrl! });
  await pg.connect();
  // the first process migrates; the others start on the migrated database
  apiA = await startChildServer(db, API_ENV);
  const [second, ...rest] = await startAll([API_ENV, WORKER_ENV, WORKER_ENV]);
  apiB = second;
  workers = rest;
  a = new Client(apiA.url);
  await a.login(ADMIN.username, ADMIN.password);
  b = new Client(apiB.url);
  b.cookie = a.cookie;
  ({ packId, agentId } = await setupPack(a, fake));
});

afterAll(async () => {
  await Promise.all([...new Set([apiA, ...extra])].map((s) => s?.kill()));
  await pg?.end();
  await db?.drop();
  await fake?.close();
});

test('a worker serves probes only: API requests are refused with a problem naming the role', async () => {
  expect((await fetch(`${workers[0].url}/health`)).status).toBe(200);
  const r = await fetch(`${workers[0].url}/agent/status`);
  expect(r.status).toBe(404);
  expect(r.headers.get('content-type')).toContain('application/problem+json');
  expect(((await r.json()) as { detail: string }).detail).toContain('ROLE=worker');
  // its /metrics (an admin's session, shared by every process) reports the cluster's levels
  const text = await until('the workers count each other', async () => {
    const m = await fetch(`${workers[0].url}/metrics`, { headers: { cookie: a.cookie! } });
    const body = await m.text();
    return /_cluster_workers 2\b/.test(body) && body;
  });
  expect(text).toMatch(/_queue_depth 0\b/);
  expect(text).toMatch(/_worker_runs 0\b/);
});

test("a single process (ROLE=all) refuses to start on a cluster's database: it would take the workers' runs", async () => {
  const err = await startChildServer(db, { APP_SECRET: API_ENV.APP_SECRET }).then(
    (s) => {
      extra.push(s);
      return null;
    },
    (e: Error) => e,
  );
  expect(err?.message).toContain('fatal: this database is served by a cluster (2 live worker(s))');
});

test('a stream started on API A and resumed on API B with Last-Event-ID: every event once, in order', async () => {
  await bind(a, 'relay', packId);
  fake.reset();
  fake.enqueue(slow(40, 25));
  const first = await stream(a, `${apiA.url}/agent/stream?project_slug=relay&message=hello`, (e) => e.seq >= 12);
  const seen = first.events;
  expect(seen.at(-1)!.event).not.toBe('close');
  const runId: string = seen[0].data.run_id;
  const rest = await stream(b, `${apiB.url}/agent/stream`, undefined, seen.at(-1)!.id);
  const all = [...seen, ...rest.events];
  expect(all.at(-1)!.event).toBe('close');
  expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
  expect(
    all
      .filter((e) => e.event === 'content')
      .map((e) => e.data.delta)
      .join(''),
  ).toBe(slow(40, 0).text);
  // the same as the stored run, read in one piece from either replica
  const stored = await stream(a, `${apiB.url}/agent/runs/${runId}/stream`);
  expect(stored.events.map((e) => [e.seq, e.event])).toEqual(all.map((e) => [e.seq, e.event]));
  // and the synchronous API answers through the queue too
  fake.enqueue({ text: 'Synchronous answer.' });
  const sync = await b.post('/agent/chat', { project_slug: 'relay', message: 'again' });
  expect(sync.status).toBe(200);
  expect(sync.body).toMatchObject({ reply: 'Synchronous answer.', project_slug: 'relay', agent: { name: 'Scribe' } });
});

test('an event too large for a notification reaches the stream on an API replica from the database, in order', async () => {
  await bind(a, 'large', packId);
  fake.reset();
  const content = 'z'.repeat(12_000);
  fake.enqueue(
    {
      tool_calls: [
        { name: 'write_file', arguments: { path: 'big.md', content } },
        { name: 'read_file', arguments: { path: 'big.md' } },
      ],
    },
    { text: 'Read it back.' },
  );
  const r = await stream(b, `${apiB.url}/agent/stream?project_slug=large&message=big`);
  expect(r.events.at(-1)!.event).toBe('close');
  expect(r.events.map((e) => e.seq)).toEqual(r.events.map((_, i) => i + 1));
  const read = r.events.find((e) => e.event === 'tool_result' && e.data.name === 'read_file')!;
  expect(read.data.ok).toBe(true);
  expect(String(read.data.output)).toContain(content);
  const call = r.events.find((e) => e.event === 'tool_call' && e.data.name === 'write_file')!;
  expect(call.data.arguments.content).toBe(content);
});

test('a tool approval, a gate and a rerun decided through the other API go on on a worker', async () => {
  // an agent whose writes wait for approval, alone in a pack
  const agent = await a.get(`/studio/api/agents/${agentId}`);
  const careful = await a.post('/studio/api/agents', {
    name: 'Careful',
    model_id: agent.body.model_id,
    tool_allowlist: ['write_file'],
    tools_requiring_approval: ['write_file'],
  });
  expect(careful.status).toBe(201);
  const pack = await a.post('/studio/api/workflows', { name: 'Careful pack', domain: 'pdlc' });
  await a.put(`/studio/api/workflows/${pack.body.id}/graph`, {
    nodes: [{ node_key: 'work', type: 'agent', agent_id: careful.body.id, stage_label: 'discover' }],
    edges: [{ from_node: 'start', to_node: 'work' }],
  });
  await bind(a, 'approve', pack.body.id);
  fake.reset();
  fake.enqueue(
    { tool_calls: [{ name: 'write_file', arguments: { path: 'ok.md', content: 'approved' } }] },
    { text: 'Written.' },
  );
  const waiting = await a.post('/agent/chat', { project_slug: 'approve', message: 'write it' });
  expect(waiting.status).toBe(200);
  expect(waiting.body.pending_approval).toMatchObject({ name: 'write_file' });
  const runId: string = waiting.body.run_id;
  const lastSeq: number = (await a.get(`/agent/runs/${runId}`)).body.last_seq;
  const decided = await b.post(`/agent/runs/${runId}/approvals/${waiting.body.pending_approval.call_id}`, {
    decision: 'approve',
  });
  expect(decided.status).toBe(202);
  const after = await stream(a, `${apiA.url}/agent/runs/${runId}/stream`, undefined, `${runId}:${lastSeq}`);
  expect(after.events.at(-2)!.data).toMatchObject({ state: 'done' });
  expect((await b.get('/studio/api/projects/approve/files/ok.md')).body.content).toBe('approved');

  // the gate pack: a turn stops at the gate; Advance through the other API moves the project on
  await bind(a, 'gated', packId);
  fake.enqueue({ text: 'Discovery done.' }, { text: 'Design done.' }, { text: 'Discovery again.' });
  const first = await a.post('/agent/chat', { project_slug: 'gated', message: 'start' });
  expect(first.body.awaiting_gate).toMatchObject({ node_key: 'gate1', next_stage: 'design' });
  const advanced = await b.post('/agent/chat', { project_slug: 'gated', message: 'go on', advance: true });
  expect(advanced.status).toBe(200);
  expect(advanced.body).toMatchObject({ stage: 'design', reply: 'Design done.' });

  // a rerun of the first turn from its node, asked through the other API
  const rerun = await b.post(`/agent/runs/${first.body.run_id}/rerun`, { node_key: 'write' });
  expect(rerun.status).toBe(202);
  const rerunStream = await stream(a, `${apiA.url}/agent/runs/${rerun.body.run_id}/stream`);
  expect(rerunStream.events.at(-2)!.data).toMatchObject({ state: 'done' });
  expect(
    rerunStream.events
      .filter((e) => e.event === 'content')
      .map((e) => e.data.delta)
      .join(''),
  ).toBe('Discovery again.');
});

test('login rate limits and per-user stream caps hold across both APIs', async () => {
  // LOGIN_LIMIT_PER_USER (10 a minute): attempts on either replica count together
  const wrong = { username: 'victim', password: 'not-the-password' };
  for (let i = 0; i < 10; i++) {
    const r = await (i % 2 ? a : b).post('/auth/login', wrong);
    expect(r.status).toBe(401);
  }
  const limited = await b.post('/auth/login', wrong);
  expect(limited.status).toBe(429);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

  // MAX_STREAMS_PER_USER (4): streams open on either replica count together
  await bind(a, 'watched', packId);
  fake.reset();
  fake.enqueue(slow(400, 50));
  const runId = (
    await stream(a, `${apiA.url}/agent/stream?project_slug=watched&message=long`, (e) => e.event === 'content')
  ).events[0].data.run_id as string;
  let ready = 0;
  const open = [apiA, apiB, apiA, apiB].map((api, i) => {
    let first = true;
    return stream(i % 2 ? b : a, `${api.url}/agent/runs/${runId}/stream`, () => {
      if (first) ready++;
      first = false;
    });
  });
  await until('four streams open', async () => ready === 4);
  const refusedOnB = await stream(b, `${apiB.url}/agent/runs/${runId}/stream`);
  expect(refusedOnB.status).toBe(429);
  const refusedOnA = await stream(a, `${apiA.url}/agent/runs/${runId}/stream`);
  expect(refusedOnA.status).toBe(429);
  expect((await a.post(`/agent/runs/${runId}/cancel`, {})).status).toBe(202);
  for (const r of await Promise.all(open)) expect(r.events.at(-1)!.event).toBe('close');
});

test('cancel through the other API stops a run on either worker, and a queued one', async () => {
  for (const p of ['left', 'right', 'waiting']) await bind(a, p, packId);
  fake.reset();
  fake.enqueue(slow(400, 50), slow(400, 50));
  /** Starts a streamed turn and returns its run id once `until` (an event) has come; the turn goes on. */
  const start = async (project: string, api: ChildServer, c: Client, upTo: string) => {
    const r = await stream(c, `${api.url}/agent/stream?project_slug=${project}&message=long`, (e) => e.event === upTo);
    expect(r.events[0]).toMatchObject({ seq: 1, event: 'status', data: { state: 'queued' } });
    return r.events[0].data.run_id as string;
  };
  const left = await start('left', apiA, a, 'content');
  const right = await start('right', apiB, b, 'content');
  // one turn on each worker (each carries one at a time)
  const carriers = await until('both runs claimed', async () => {
    const [x, y] = [await workerOf(left), await workerOf(right)];
    return x && y && ([x, y] as const);
  });
  expect(carriers[0]).not.toBe(carriers[1]);

  // both workers busy: a third turn waits in the queue, named by its first event
  const waiting = await start('waiting', apiA, a, 'status');
  const { rows } = await pg.query('SELECT state, worker_id FROM runs WHERE id = $1', [waiting]);
  expect(rows[0]).toEqual({ state: 'running', worker_id: null });

  // each cancelled through the API the turn did not start on
  expect((await b.post(`/agent/runs/${waiting}/cancel`, {})).status).toBe(202);
  const queuedEnd = await stream(a, `${apiA.url}/agent/runs/${waiting}/stream`);
  expect(queuedEnd.events.map((e) => e.event)).toEqual(['status', 'error', 'done', 'close']);
  expect(queuedEnd.events[2].data.state).toBe('cancelled');
  expect((await b.post(`/agent/runs/${left}/cancel`, {})).status).toBe(202);
  expect((await a.post(`/agent/runs/${right}/cancel`, {})).status).toBe(202);
  for (const [runId, c, api] of [
    [left, a, apiA],
    [right, b, apiB],
  ] as const) {
    const end = await stream(c, `${api.url}/agent/runs/${runId}/stream`);
    expect(end.events.at(-1)!.event).toBe('close');
    expect(end.events.at(-2)!.data.state).toBe('cancelled');
    expect((await c.get(`/agent/runs/${runId}`)).body.state).toBe('cancelled');
  }
  const history = await a.get('/agent/history/waiting');
  expect(history.body.messages.map((m: { role: string; state: string }) => [m.role, m.state])).toEqual([
    ['user', 'done'],
    ['assistant', 'stopped'],
  ]);
  // the queued turn never ran: only the two cancelled ones called the model, and the workers are free
  expect(fake.requests.length).toBe(2);
  fake.enqueue({ text: 'free again' });
  expect((await b.post('/agent/chat', { project_slug: 'waiting', message: 'now' })).body.reply).toBe('free again');
});

test('SIGTERM: a worker hands its run back and another resumes it at once; an API replica ends its streams reconnectable', async () => {
  const [apiC, spare] = await startAll([API_ENV, WORKER_ENV]);
  workers.push(spare);
  await bind(a, 'handback', packId);
  fake.reset();
  fake.enqueue(slow(120, 30), slow(120, 0));
  const c = new Client(apiC.url);
  c.cookie = a.cookie;
  const seen: SseEvent[] = [];
  let stopping = null as Promise<Array<{ code: number | null } | null>> | null;
  let carrier: ChildServer | undefined;
  const first = await stream(c, `${apiC.url}/agent/stream?project_slug=handback&message=long`, (e) => {
    seen.push(e);
    if (!stopping && seen.filter((x) => x.event === 'content').length === 5) {
      stopping = workerOf(seen[0].data.run_id as string).then(async (w) => {
        carrier = w;
        w!.child.kill('SIGTERM');
        apiC.child.kill('SIGTERM');
        return Promise.all([exited(w!.child, 10_000), exited(apiC.child, 10_000)]);
      });
    }
  });
  const [workerExit, apiExit] = (await stopping)!;
  // both stopped cleanly, not by their deadline's backstop (exit code 1); the stream ended without
  // `close`: the client reconnects
  for (const exit of [workerExit, apiExit]) {
    expect(exit).not.toBeNull();
    expect(exit!.code).not.toBe(1);
  }
  expect(first.events.at(-1)!.event).not.toBe('close');
  workers = workers.filter((w) => w !== carrier);
  const runId: string = seen[0].data.run_id;
  const rest = await stream(a, `${apiA.url}/agent/stream`, undefined, first.events.at(-1)!.id);
  expect(rest.events.at(-1)!.event).toBe('close');
  expect(rest.events.at(-2)!.data.state).toBe('done');
  expect(rest.events.find((e) => e.event === 'status')!.data).toMatchObject({ state: 'resumed', attempt: 2 });
  expect((await a.get(`/agent/runs/${runId}`)).body).toMatchObject({ state: 'done', attempts: 2 });
});

test('kill -9 of the worker carrying a three-tool turn: the other worker finishes it, each tool applied once', async () => {
  await bind(a, 'crash', packId);
  fake.reset();
  fake.enqueue(plan, edit, answer);
  const seen: SseEvent[] = [];
  let victim = null as Promise<ChildServer | undefined> | null;
  await stream(a, `${apiA.url}/agent/stream?project_slug=crash&message=three+changes`, (e) => {
    seen.push(e);
    if (!victim && seen.filter((x) => x.event === 'tool_result').length === 2 && e.event === 'content') {
      victim = workerOf(seen[0].data.run_id as string).then(async (w) => {
        await w!.kill();
        return w;
      });
      return true;
    }
  });
  const runId: string = seen[0].data.run_id;
  const killed = (await victim)!;
  expect(killed).toBeDefined();
  const killedAt = Date.now();
  // the plan and the interrupted edit call were made; the edit call is made again after the takeover
  expect(fake.requests.length).toBe(2);
  fake.reset();
  fake.enqueue({ ...edit, tokenIntervalMs: 0 }, answer);
  // the other worker takes it over and finishes it; the stream goes on from where the client was
  const rest = await stream(b, `${apiB.url}/agent/stream`, undefined, seen.at(-1)!.id);
  const tookMs = Date.now() - killedAt;
  expect(rest.events.at(-1)!.event).toBe('close');
  expect(rest.events.at(-2)!.data.state).toBe('done');
  const run = (await b.get(`/agent/runs/${runId}`)).body;
  expect(run).toMatchObject({ state: 'done', attempts: 2 });
  expect(tookMs).toBeLessThan(30_000);
  const carrier = await pg.query<{ worker_id: string }>('SELECT worker_id FROM runs WHERE id = $1', [runId]);
  expect(carrier.rows[0].worker_id).not.toContain(`-${killed.child.pid}-`);
  // the plan's model call and its two writes were not repeated: the repeated edit call carries their results
  expect(fake.requests.length).toBe(2);
  const resent = fake.requests[0].body.messages as Array<{ role: string }>;
  expect(resent.filter((m) => m.role === 'tool')).toHaveLength(2);
  const revisions = await pg.query<{ path: string; n: string }>(
    `SELECT path, count(*) AS n FROM file_revisions r JOIN projects p ON p.id = r.project_id
      WHERE p.slug = 'crash' GROUP BY path ORDER BY path`,
  );
  expect(revisions.rows).toEqual([
    { path: 'a.md', n: '2' },
    { path: 'b.md', n: '1' },
    { path: 'docs/out.md', n: '1' }, // the node's artifact, written once at the end
  ]);
  const file = await a.get('/studio/api/projects/crash/files/a.md');
  expect(file.body.content).toBe('ALPHA');
  // one numbering across both attempts: increasing, nothing the client saw repeated
  const all = [...seen, ...rest.events];
  expect(all.every((e, i) => i === 0 || e.seq > all[i - 1].seq)).toBe(true);
  const resumed = rest.events.find((e) => e.event === 'status' && e.data.state === 'resumed');
  expect(resumed).toBeDefined();
  workers = workers.filter((w) => w !== killed);
});
