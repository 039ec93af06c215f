/**
 * SIGTERM with a deadline, at process level: the built server (dist/src/main.js) runs as a child
 * process on a database of the test's own, its default model a fake provider that never answers.
 * A stream is open when SIGTERM arrives: the process must exit by itself (not by its backstop),
 * the stream must end with `server_shutdown`, and the run must not be left `running`.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { ADMIN, createTestDb, type TestDb } from './support/app';
import { FakeLlm } from './support/fake-llm';
import { names, readStream } from './support/sse';

const DEADLINE_MS = 4_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Resolves with how the child exited, or null when it is still running after `ms` (a bounded wait). */
function exited(
  child: ChildProcess,
  ms: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null } | null> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

let fake: FakeLlm;
let db: TestDb;
let child: ChildProcess;
const logs: string[] = [];

beforeAll(async () => {
  fake = await FakeLlm.start({ defaultTurn: { hang: true } });
  db = await createTestDb();
});
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await exited(child, 10_000);
  }
  await db.drop();
  await fake.close();
});

test('SIGTERM with a stream on a provider that never answers: the stream ends, the run is settled, the process exits before its deadline', async () => {
  const port = await freePort();
  child = spawn(process.execPath, [join(__dirname, '../dist/src/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: db.dataDir,
      DATABASE_URL: db.databaseUrl!,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      LLM_PROVIDER: 'custom',
      LLM_API_BASE: fake.openaiBase,
      LLM_MODEL: 'fake-1',
      LLM_API_KEY: 'sk-test-key-not-real',
      LOG_LEVEL: 'warn',
      SHUTDOWN_DEADLINE_MS: String(DEADLINE_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => logs.push(String(d)));
  child.stderr!.on('data', (d) => logs.push(String(d)));
  const url = `http://127.0.0.1:${port}`;
  const up = Date.now() + 60_000;
  for (;;) {
    assert.equal(child.exitCode, null, `the server exited early:\n${logs.join('')}`);
    const ok = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    assert.ok(Date.now() < up, `the server did not start:\n${logs.join('')}`);
    await new Promise((r) => setTimeout(r, 200));
  }

  let asked!: () => void;
  const modelAsked = new Promise<void>((r) => (asked = r));
  const reading = readStream(`${url}/agent/stream?message=hello`, {
    onEvent: (e) => {
      if (e.event === 'agent') asked();
    },
  });
  await modelAsked;
  // the model call is in flight and will never be answered
  await until(() => fake.requests.length > 0);
  child.kill('SIGTERM');
  const exit = await exited(child, DEADLINE_MS + 15_000);
  assert.ok(exit, `still running long after SIGTERM:\n${logs.join('')}`);
  const s = await reading;
  assert.notEqual(
    exit.code,
    1,
    `exited by the deadline backstop, not by a clean shutdown:\n${logs.join('')}\n${JSON.stringify(s.events.map((e) => e.event))}`,
  );
  assert.deepEqual(names(s.events).slice(-4), ['error', 'workflow', 'done', 'close']);
  assert.equal(s.events.find((e) => e.event === 'error')!.data.code, 'server_shutdown');
  assert.equal(s.events.find((e) => e.event === 'done')!.data.state, 'interrupted');
  const runId = s.events[0].id.split(':')[0];

  const pg = new PgClient({ connectionString: db.databaseUrl! });
  await pg.connect();
  try {
    const run = (await pg.query('SELECT state FROM runs WHERE id = $1', [runId])).rows[0];
    assert.equal(run.state, 'interrupted', 'the run is not left running');
    const stored = (await pg.query('SELECT seq FROM run_events WHERE run_id = $1 ORDER BY seq', [runId])).rows.map(
      (r) => r.seq,
    );
    assert.deepEqual(
      stored,
      s.events.map((e) => e.seq),
      'a replay after the restart shows the whole stream',
    );
  } finally {
    await pg.end();
  }
});

async function until(cond: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
