/**
 * Starts the real production server (apps/api/dist/src/main.js) for browser tests, on a free port with
 * a fresh database on the embedded Postgres server `npm test` runs (TEST_EMBEDDED_PG_URL), or on the
 * machine's Postgres server when TEST_DATABASE=postgres; run on its own, the server embeds its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';

export const ADMIN = { username: 'admin', password: 'admin-password-1' };
const root = join(__dirname, '../../../..');

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

export interface RunningServer {
  url: string;
  logs: string[];
  stop(): Promise<void>;
}

export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'aws-e2e-'));
  let databaseUrl: string | undefined;
  let dbName: string | undefined;
  const admin =
    process.env.TEST_DATABASE === 'postgres'
      ? process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
      : process.env.TEST_EMBEDDED_PG_URL || '';
  if (admin) {
    dbName = `aws_e2e_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const c = new PgClient({ connectionString: admin });
    await c.connect();
    await c.query(`CREATE DATABASE ${dbName}`);
    await c.end();
    const u = new URL(admin);
    u.pathname = '/' + dbName;
    databaseUrl = u.toString();
  }
  const logs: string[] = [];
  const child: ChildProcess = spawn(process.execPath, [join(root, 'apps/api/dist/src/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
      LOGIN_LIMIT_PER_CLIENT: '1000',
      LOGIN_LIMIT_PER_USER: '1000',
      DEMO_LIMIT_PER_MINUTE: '1000',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: '' }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => logs.push(String(d)));
  child.stderr?.on('data', (d) => logs.push(String(d)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${logs.join('')}`);
    try {
      const r = await fetch(url + '/health');
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      // do not leave it running: its open pipes would keep the test process alive after the failure
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${logs.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    logs,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dataDir, { recursive: true, force: true });
      if (dbName) {
        const c = new PgClient({ connectionString: admin });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
        await c.end();
      }
    },
  };
}
