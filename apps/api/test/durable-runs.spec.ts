/**
 * Durable runs at process level (docs/decisions/runtime.md, "Durable runs"): the built server runs as a
 * child process with the scripted fake provider as its model. A streamed three-tool turn is killed with
 * SIGKILL while its second model call streams; a new server on the same database resumes it at boot.
 * The run completes under the same id, no finished model call is made twice (the fake counts requests),
 * each file write lands once, and the stream read again with Last-Event-ID — dropping what the `resumed`
 * status event says was superseded — renders the same reply as an uninterrupted run.
 */
import { randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { ADMIN, createTestDb, type TestDb } from './support/app';
import { bind, setupPack } from './support/chat-pack';
import { startChildServer, type ChildServer } from './support/child-server';
import { FakeLlm } from './support/fake-llm';
import { Client, newUser } from './support/http';
import { readStream, type SseEvent } from './support/sse';
import { answer, edit, plan } from './support/three-tool-turn';

let fake: FakeLlm;
let db: TestDb;
let server: ChildServer | null = null;
let pg: PgClient;

beforeAll(async () => {
  fake = await FakeLlm.start();
  db = await createTestDb();
  pg = new PgClient({ connectionString: db.databaseUrl! });
  await pg.connect();
});
afterAll(async () => {
  await server?.kill();
  await pg.end();
  await db.drop();
  await fake.close();
});

/** What a client shows: the events, minus those a `resumed` status event says were superseded. */
function rendered(events: SseEvent[]): SseEvent[] {
  const out: SseEvent[] = [];
  for (const e of events) {
    if (e.event === 'status' && e.data.state === 'resumed') {
      while (out.length && out[out.length - 1].seq > e.data.drop_after_seq) out.pop();
      continue;
    }
    out.push(e);
  }
  return out;
}
const text = (events: SseEvent[]) =>
  events
    .filter((e) => e.event === 'content')
    .map((e) => e.data.delta)
    .join('');

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not in time\n${server?.logs.join('') ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('kill -9 in the middle of a streamed three-tool turn: the restarted server finishes the run, no finished call repeated', async () => {
  server = await startChildServer(db);
  const c = new Client(server.url);
  await c.login(ADMIN.username, ADMIN.password);
  const { packId } = await setupPack(c, fake);
  const stream = (url: string, opts: Parameters<typeof readStream>[1] = {}) =>
    readStream(url, { ...opts, headers: { cookie: c.cookie!, ...opts.headers } });

  // the uninterrupted run, for comparison
  await bind(c, 'calm', packId);
  fake.enqueue(plan, { ...edit, tokenIntervalMs: 0 }, answer);
  const calm = await stream(`${server.url}/agent/stream?project_slug=calm&message=three+changes`);
  expect(calm.events.at(-1)!.event).toBe('close');
  expect(calm.events.at(-2)!.data.state).toBe('done');

  // the same turn, killed while the second model call streams
  await bind(c, 'crash', packId);
  fake.reset();
  fake.enqueue(plan, edit, answer);
  const seen: SseEvent[] = [];
  const running = server;
  let fired = false;
  let gone!: () => void;
  const killed = new Promise<void>((resolve) => (gone = resolve));
  await stream(`${server.url}/agent/stream?project_slug=crash&message=three+changes`, {
    onEvent: (e) => {
      seen.push(e);
      const results = seen.filter((x) => x.event === 'tool_result').length;
      if (results === 2 && e.event === 'content' && !fired) {
        fired = true;
        void running.kill().then(gone);
      }
    },
  }).catch(() => undefined); // the connection dies with the process
  await killed;
  expect(fake.requests.length).toBe(2); // the plan, and the edit call cut short
  const runId: string = seen[0].data.run_id;
  expect(seen.filter((e) => e.event === 'content').length).toBeGreaterThan(1);

  // the interrupted call is made again; the plan is not
  fake.reset();
  fake.enqueue(edit, answer);
  server = await startChildServer(db);
  const c2 = new Client(server.url);
  c2.cookie = c.cookie;
  const run = await until('the resumed run ends', async () => {
    const r = await c2.get(`/agent/runs/${runId}`);
    return r.status === 200 && r.body.state !== 'running' && r.body;
  });
  expect(run).toMatchObject({ id: runId, state: 'done', attempts: 2 });
  expect(fake.requests.length).toBe(2);
  // the repeated call continues the same conversation: the plan's two tool results are in it
  const resent = fake.requests[0].body.messages;
  expect(resent.filter((m: { role: string }) => m.role === 'tool')).toHaveLength(2);

  // the stream, read on from the last event the client saw
  const rest = await readStream(`${server.url}/agent/stream`, {
    headers: { cookie: c2.cookie!, 'last-event-id': seen.at(-1)!.id },
  });
  const all = [...seen, ...rest.events];
  // one numbering (a resumed attempt goes on above anything a client may have seen), nothing doubled
  expect(all.every((e, i) => i === 0 || e.seq > all[i - 1].seq)).toBe(true);
  expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
  const resumed = rest.events.find((e) => e.event === 'status');
  expect(resumed?.data).toMatchObject({ run_id: runId, state: 'resumed', attempt: 2 });
  const shown = rendered(all);
  const strip = (events: SseEvent[]) => events.map((e) => e.event);
  expect(strip(shown)).toEqual(strip(calm.events));
  expect(text(shown)).toBe(text(calm.events));
  expect(shown.at(-2)!.data.reply).toBe(calm.events.at(-2)!.data.reply);

  // each write landed once; the checkpoints are gone with the finished run
  const revisions = await pg.query(
    `SELECT r.path, count(*)::int AS n FROM file_revisions r JOIN projects p ON p.id = r.project_id
      WHERE p.slug = 'crash' GROUP BY r.path ORDER BY r.path`,
  );
  expect(revisions.rows).toEqual([
    { path: 'a.md', n: 2 },
    { path: 'b.md', n: 1 },
    { path: 'docs/out.md', n: 1 },
  ]);
  const file = await c2.get('/studio/api/projects/crash/files/a.md');
  expect(file.body.content).toBe('ALPHA');
  const left = await pg.query('SELECT count(*)::int AS n FROM run_checkpoints WHERE run_id = $1', [runId]);
  expect(left.rows[0].n).toBe(0);
  // history has the one reply of the turn
  const history = await c2.get('/agent/history/crash');
  const replies = history.body.messages.filter((m: { role: string }) => m.role === 'assistant');
  expect(replies).toHaveLength(1);
  expect(replies[0]).toMatchObject({
    run_id: runId,
    state: 'done',
    resumed: true,
    content: 'All three changes are done.',
  });
  const calmHistory = await c2.get('/agent/history/calm');
  expect(calmHistory.body.messages.at(-1)).toMatchObject({ role: 'assistant', resumed: false });
  await server.kill();
  server = null;
});

/** Starts a streamed turn on `slug` whose second model call never answers; resolves with its run id once it hangs. */
async function hangingTurn(c: Client, url: string, slug: string): Promise<string> {
  const asked = fake.requests.length;
  fake.enqueue(plan, { hang: true });
  let runId = '';
  void readStream(`${url}/agent/stream?project_slug=${slug}&message=go`, {
    headers: { cookie: c.cookie! },
    onEvent: (e) => void (e.event === 'status' && (runId = e.data.run_id)),
  }).catch(() => undefined);
  await until('the second model call', async () => fake.requests.length === asked + 2 && runId);
  return runId;
}

test('RESUME_INTERRUPTED=off: the run is marked interrupted with its checkpoints kept; POST /agent/runs/{id}/resume finishes it', async () => {
  fake.reset();
  server = await startChildServer(db);
  const c = new Client(server.url);
  await c.login(ADMIN.username, ADMIN.password);
  const { packId } = await setupPack(c, fake);
  await bind(c, 'later', packId);
  const runId = await hangingTurn(c, server.url, 'later');
  await server.kill();

  server = await startChildServer(db, { RESUME_INTERRUPTED: 'off' });
  const c2 = new Client(server.url);
  c2.cookie = c.cookie;
  const interrupted = await c2.get(`/agent/runs/${runId}`);
  expect(interrupted.body).toMatchObject({ state: 'interrupted', attempts: 1, error: { code: 'interrupted' } });
  const kept = await pg.query('SELECT count(*)::int AS n FROM run_checkpoints WHERE run_id = $1', [runId]);
  expect(kept.rows[0].n).toBeGreaterThan(0);

  fake.reset();
  fake.enqueue({ ...edit, tokenIntervalMs: 0 }, answer);
  const r = await c2.post(`/agent/runs/${runId}/resume`);
  expect(r.status).toBe(202);
  expect(r.body).toEqual({ run_id: runId, state: 'running', attempts: 2 });
  // the run's own stream: its whole log, then live until close; read as a client renders it
  const log = await readStream(`${server.url}/agent/runs/${runId}/stream`, { headers: { cookie: c2.cookie! } });
  expect(log.events.at(-1)!.event).toBe('close');
  expect(log.events.map((e) => e.event)).toContain('error'); // the interrupted ending, superseded…
  const shown = rendered(log.events);
  expect(shown.map((e) => e.event)).not.toContain('error'); // …and dropped by the resumed status
  expect(text(shown)).toBe(`${plan.text}${edit.text}${answer.text}`);
  expect(shown.at(-2)!.data).toMatchObject({ state: 'done', reply: answer.text });
  const bad = await readStream(`${server.url}/agent/runs/${runId}/stream`, {
    headers: { cookie: c2.cookie!, 'last-event-id': `${randomUUID()}:3` },
  });
  expect(bad.status).toBe(400);
  const run = await until('the resumed run ends', async () => {
    const x = await c2.get(`/agent/runs/${runId}`);
    return x.body.state !== 'running' && x.body;
  });
  expect(run).toMatchObject({ state: 'done', attempts: 2, error: null });
  expect(fake.requests.length).toBe(2); // the hung call again, then the answer: the plan is not repeated
  const history = await c2.get('/agent/history/later');
  const replies = history.body.messages.filter((m: { run_id: string; role: string }) => m.role === 'assistant');
  expect(replies.map((m: { state: string; content: string }) => [m.state, m.content])).toEqual([
    ['done', 'All three changes are done.'],
  ]);

  const again = await c2.post(`/agent/runs/${runId}/resume`);
  expect(again.status).toBe(409);
  expect(again.body.code).toBe('run.not_resumable');
  const other = await newUser(server.url, c2, 'mallory');
  expect((await other.post(`/agent/runs/${runId}/resume`)).status).toBe(404);
  await server.kill();
  server = null;
});

test('a run that cannot resume (started too often, its pack deleted) ends error resume_failed, never stuck running', async () => {
  fake.reset();
  server = await startChildServer(db);
  const c = new Client(server.url);
  await c.login(ADMIN.username, ADMIN.password);
  const { packId } = await setupPack(c, fake);
  await bind(c, 'tired', packId);
  await bind(c, 'orphan', packId);
  const tired = await hangingTurn(c, server.url, 'tired');
  const orphan = await hangingTurn(c, server.url, 'orphan');
  await server.kill();
  await pg.query('UPDATE runs SET attempts = 3 WHERE id = $1', [tired]);
  await pg.query('UPDATE runs SET workflow_id = NULL WHERE id = $1', [orphan]); // as a deleted pack leaves it

  const asked = fake.requests.length;
  server = await startChildServer(db);
  const c2 = new Client(server.url);
  c2.cookie = c.cookie;
  for (const [id, slug, why] of [
    [tired, 'tired', 'it was started 3 times without finishing'],
    [orphan, 'orphan', 'its pack was deleted'],
  ]) {
    const run = (await c2.get(`/agent/runs/${id}`)).body;
    expect(run).toMatchObject({ state: 'error', error: { code: 'resume_failed' } });
    expect(run.error.message).toContain(why);
    const history = await c2.get(`/agent/history/${slug}`);
    expect(history.body.messages.at(-1)).toMatchObject({ run_id: id, role: 'assistant', state: 'failed' });
    const left = await pg.query('SELECT count(*)::int AS n FROM run_checkpoints WHERE run_id = $1', [id]);
    expect(left.rows[0].n).toBe(0);
  }
  expect(fake.requests.length).toBe(asked);
  await server.kill();
  server = null;
});
