/**
 * Double-texting (docs/API.md "Turns"): a message for a project whose turn is still running is `409
 * turn_in_progress` by default; with `multitask: "enqueue"` (body or query) it waits for that turn to end
 * and then runs, in arrival order, never two turns on one project at once.
 */
import { ADMIN, startApp, type TestApp } from './support/app';
import { bind, setupPack } from './support/chat-pack';
import { FakeLlm } from './support/fake-llm';
import { Client } from './support/http';
import { readStream } from './support/sse';

let t: TestApp;
let fake: FakeLlm;
let a: Client;
let packId: number;

beforeAll(async () => {
  fake = await FakeLlm.start();
  t = await startApp();
  a = new Client(t.url);
  await a.login(ADMIN.username, ADMIN.password);
  packId = (await setupPack(a, fake)).packId;
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

/** Starts a slow streamed turn on `slug`; resolves with its run id once it is running, and its end. */
async function slowTurn(slug: string) {
  let started!: (id: string) => void;
  const runId = new Promise<string>((resolve) => (started = resolve));
  const ended = readStream(`${t.url}/agent/stream?project_slug=${slug}&message=first`, {
    headers: { cookie: a.cookie! },
    onEvent: (e) => void (e.event === 'status' && started(e.data.run_id)),
  });
  return { runId: await runId, ended };
}

const runsOf = async (slug: string) =>
  (await a.get(`/agent/runs?project_slug=${slug}`)).body.runs.reverse() as Array<{
    id: string;
    state: string;
    created_at: string;
    finished_at: string;
  }>;

test('a second message while a turn runs: 409 naming it by default; with multitask "enqueue" it runs after it', async () => {
  await bind(a, 'double', packId);
  fake.reset();
  fake.enqueue({ text: 'The first reply, slowly.', tokenIntervalMs: 60 }, { text: 'The second reply.' });
  const first = await slowTurn('double');

  const refused = await a.post('/agent/chat', { message: 'second', project_slug: 'double' });
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ code: 'turn_in_progress', run_id: first.runId });
  const bad = await a.post('/agent/chat', { message: 'second', project_slug: 'double', multitask: 'later' });
  expect(bad.status).toBe(400);

  const second = await a.post('/agent/chat', { message: 'second', project_slug: 'double', multitask: 'enqueue' });
  expect(second.status).toBe(200);
  expect(second.body.reply).toBe('The second reply.');
  const s = await first.ended;
  expect(s.events.at(-2)!.data.state).toBe('done');
  // it ran after the first had ended: its context has the first reply, the runs do not overlap
  const context = fake.requests[1].body.messages.map((m: { content: string }) => m.content);
  expect(context).toContain('The first reply, slowly.');
  const [r1, r2] = await runsOf('double');
  expect(r1.id).toBe(first.runId);
  expect(new Date(r1.finished_at).getTime()).toBeLessThanOrEqual(new Date(r2.created_at).getTime());
});

test('several enqueued messages (body or query) run one after another, in arrival order', async () => {
  await bind(a, 'queue', packId);
  fake.reset();
  fake.enqueue(
    { text: 'the first of three replies, slowly', tokenIntervalMs: 60 },
    { text: 'two', tokenIntervalMs: 30 },
    { text: 'three' },
  );
  const first = await slowTurn('queue');
  const second = a.post('/agent/chat', { message: 'second', project_slug: 'queue', multitask: 'enqueue' });
  // the second arrives first (not a wait for a result: it only orders the two arrivals)
  await new Promise((r) => setTimeout(r, 50));
  const third = a.post('/agent/chat?multitask=enqueue', { message: 'third', project_slug: 'queue' });
  const [r2, r3] = await Promise.all([second, third]);
  expect([r2.status, r3.status]).toEqual([200, 200]);
  expect([r2.body.reply, r3.body.reply]).toEqual(['two', 'three']);
  await first.ended;
  const runs = await runsOf('queue');
  expect(runs.map((r) => r.state)).toEqual(['done', 'done', 'done']);
  for (let i = 1; i < runs.length; i++)
    expect(new Date(runs[i - 1].finished_at).getTime()).toBeLessThanOrEqual(new Date(runs[i].created_at).getTime());
});
