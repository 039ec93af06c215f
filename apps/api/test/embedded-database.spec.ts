/**
 * The embedded default database (docs/decisions/database.md): without DATABASE_URL the service starts
 * its own Postgres server under DATA_DIR/postgres, stops it when it closes, and after a kill -9 the
 * next start takes over the orphaned server's data with nothing lost. These tests always run on the
 * embedded server, whatever TEST_DATABASE says.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { DataSource } from 'typeorm';
import { createApp } from '../src/platform/create-app';
import { EmbeddedPostgres } from '../src/platform/database/embedded-postgres';
import { ADMIN } from './support/app';
import { Client, newUser } from './support/http';

const MAIN = join(__dirname, '../dist/src/main.js');

// Each test runs initdb and boots the built server more than once; every wait below has its own
// deadline (waitFor), so the whole test only needs a cap well above their sum on a loaded machine.
jest.setTimeout(300_000);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Polls `check` every 50 ms until it returns true; fails after `ms`. */
async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

const postmasterPid = (dataDir: string) =>
  Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);

/** The built production server as a child process, on the embedded database in `dataDir`. */
async function startService(dataDir: string): Promise<{ child: ChildProcess; url: string; logs: () => string }> {
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  await waitFor('the service to answer /health', async () => {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${out}`);
    try {
      return (await fetch(url + '/health')).ok;
    } catch {
      return false;
    }
  });
  return { child, url, logs: () => out };
}

describe('embedded Postgres server (the default database)', () => {
  test('kill -9 of the service: the next start stops the orphaned server and keeps every user, session, file and run', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aws-embedded-'));
    let svc: Awaited<ReturnType<typeof startService>> | null = null;
    try {
      svc = await startService(dataDir);
      const admin = new Client(svc.url);
      await admin.login(ADMIN.username, ADMIN.password);
      const bob = await newUser(svc.url, admin, 'bob');
      const token = (await bob.post('/auth/tokens', { name: 'script' })).body.token as string;
      assert.equal((await bob.post('/studio/api/projects', { slug: 'kept' })).status, 201);
      assert.equal((await bob.put('/studio/api/projects/kept/files/notes.md', { content: '# kept' })).status, 200);
      // a run: one turn of the system pack on the built-in offline model
      const packs = (await bob.get('/agent/workflows')).body.workflows as Array<{ slug: string; pack_id: number }>;
      const pdlc = packs.find((w) => w.slug === 'pdlc')!;
      assert.equal(
        (await bob.put('/agent/workflows/chatty', { domain: 'pdlc', stage: 'discover', pack_id: pdlc.pack_id })).status,
        200,
      );
      const turn = await bob.post('/agent/chat', { project_slug: 'chatty', message: 'We want a budgeting app' });
      assert.equal(turn.status, 200, turn.text);
      const runId = turn.body.run_id as string;

      const orphan = postmasterPid(dataDir);
      assert.ok(alive(orphan), 'the embedded server runs while the service does');
      svc.child.kill('SIGKILL');
      await new Promise((r) => svc!.child.once('exit', r));
      assert.ok(alive(orphan), 'kill -9 of the service leaves its database server running');

      svc = await startService(dataDir);
      assert.ok(!alive(orphan), 'the orphaned server was stopped');
      assert.notEqual(postmasterPid(dataDir), orphan);
      const again = new Client(svc.url);
      again.cookie = bob.cookie;
      const me = await again.get('/auth/me');
      assert.equal(me.status, 200, me.text);
      assert.equal(me.body.username, 'bob');
      const viaToken = new Client(svc.url);
      viaToken.bearer = token;
      const file = await viaToken.get('/studio/api/projects/kept/files/notes.md');
      assert.equal(file.status, 200, file.text);
      assert.equal(file.body.content, '# kept');
      const history = await viaToken.get('/agent/history/chatty');
      assert.equal(history.status, 200, history.text);
      assert.ok(
        (history.body.messages as Array<{ run_id: string }>).some((m) => m.run_id === runId),
        `the run is gone after the restart: ${history.text}`,
      );
      assert.equal((await new Client(svc.url).login(ADMIN.username, ADMIN.password)).status, 200);

      // SIGTERM: the service stops its server before it exits
      const server = postmasterPid(dataDir);
      svc.child.kill('SIGTERM');
      await new Promise((r) => svc!.child.once('exit', r));
      assert.ok(
        !existsSync(join(dataDir, 'postgres', 'postmaster.pid')),
        `the server left its lock file:\n${svc.logs()}`,
      );
      assert.ok(!alive(server), 'the server outlived the service');
    } finally {
      if (svc && svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGKILL');
      if (existsSync(join(dataDir, 'postgres', 'postmaster.pid'))) {
        const pid = postmasterPid(dataDir);
        if (alive(pid)) process.kill(pid, 'SIGINT');
        await waitFor('the server to stop', () => !alive(pid), 30_000);
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('where the server cannot run, the service stops with one line saying what to do', async () => {
    // as root the server runs as OS user "postgres", which cannot enter a private folder of root's;
    // as another user the same folder is the user's own and the service starts
    const parent = mkdtempSync(join(tmpdir(), 'aws-private-'));
    const dataDir = join(parent, 'data');
    const port = await freePort();
    const child = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    let closed = false;
    child.stderr.on('data', (d) => (err += d));
    child.once('close', () => (closed = true));
    try {
      if (process.getuid?.() === 0) {
        await waitFor('the service to exit', () => closed);
        assert.equal(child.exitCode, 1);
        const lines = err.trim().split('\n');
        assert.equal(lines.length, 1, err);
        assert.match(
          lines[0],
          /^fatal: embedded Postgres: .*cannot reach .*; set DATA_DIR to a directory it can reach .* or set DATABASE_URL$/,
        );
      } else {
        await waitFor('the service to answer /health', async () => {
          if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${err}`);
          return fetch(`http://127.0.0.1:${port}/health`).then(
            (r) => r.ok,
            () => false,
          );
        });
      }
    } finally {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(parent, { recursive: true, force: true });
    }
  });

  test('a stale postmaster.pid naming a live process that is not Postgres does not stop the start', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'aws-embedded-')), 'postgres');
    const server = new EmbeddedPostgres({ dir });
    try {
      await server.start();
      await server.stop();
      assert.ok(!existsSync(join(dir, 'postmaster.pid')));
      // what a kill -9 of the whole machine or container leaves: the lock file of a server that is gone,
      // naming a pid that now belongs to another process (here: this test)
      writeFileSync(
        join(dir, 'postmaster.pid'),
        `${process.pid}\n${dir}\n1700000000\n5432\n\n127.0.0.1\n  5432001         0\nready   \n`,
      );
      const url = await server.start();
      const c = new PgClient({ connectionString: url });
      await c.connect();
      const r = await c.query('SELECT 1 AS one');
      await c.end();
      assert.equal(r.rows[0].one, 1);
    } finally {
      await server.stop();
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  });

  test('without DATABASE_URL the app runs on its own server and stops it when the app closes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aws-embedded-'));
    try {
      const { app, db } = await createApp(
        {
          dataDir,
          databaseUrl: null,
          appSecret: 'test-secret-not-for-production',
          adminUsername: null,
          adminPassword: null,
          logLevel: 'silent',
        },
        { logger: false },
      );
      assert.equal(db.kind, 'embedded');
      const pid = db.embedded!.pid!;
      assert.ok(alive(pid));
      assert.deepEqual(await app.get(DataSource).query(`SELECT to_regclass('public.users') IS NOT NULL AS migrated`), [
        { migrated: true },
      ]);
      await app.close();
      await waitFor('the server to exit', () => !alive(pid), 30_000);
      assert.ok(!existsSync(join(dataDir, 'postgres', 'postmaster.pid')));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
