// Child processes of the benchmark (the fake provider and the production server), their CPU and
// memory read from /proc, and the throwaway Postgres database of a run.
import { execSync, fork, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { sleep } from './stats.mjs';
import { serviceNodeArgs, serviceEnv } from '../../scripts/service-process.mjs';

export const ROOT = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
const require = createRequire(import.meta.url);
export const ADMIN = { username: 'bench-admin', password: 'bench-admin-password-1' };
const CLK_TCK = 100; // USER_HZ on Linux: /proc reports CPU time in 1/100 s

/**
 * Installs and builds (unless BENCH_SKIP_BUILD=1), then checks that the server build and the fake model
 * server the benches start are there.
 */
export function ensureBuilt(log) {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    log('building (node scripts/ensure-install.mjs && nx run-many -t build)…');
    execSync('node scripts/ensure-install.mjs', { stdio: 'inherit', cwd: ROOT });
    execSync('npx nx run-many -t build --outputStyle=static', {
      stdio: 'inherit',
      cwd: ROOT,
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
    });
  }
  for (const f of ['apps/api/dist/src/main.js', 'apps/api/dist-support/fake-llm.js']) {
    if (!existsSync(join(ROOT, f))) throw new Error(`${f} is missing: build first (npm run build)`);
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** CPU seconds (user + system) a process has used so far, threads included. */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** Resident set now and its high-water mark, in bytes. */
export function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** The fake provider in its own process; `call(cmd, extra)` steers it (see fake-provider-child.mjs). */
export async function startFake() {
  const child = fork(join(ROOT, 'bench/lib/fake-provider-child.mjs'), [ROOT], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map();
  let seq = 0;
  const ready = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`fake provider exited (${code})`)));
    child.on('message', (m) => {
      if (m.ready) return resolve(m);
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.ok === false) p.reject(new Error(m.error));
      else p.resolve(m);
    });
  });
  return {
    pid: child.pid,
    openaiBase: ready.openaiBase,
    url: ready.url,
    call(cmd, extra = {}) {
      const id = ++seq;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, cmd, ...extra });
      });
    },
    setTurn(turn) {
      return this.call('turn', { turn });
    },
    enqueue(...turns) {
      return this.call('enqueue', { turns });
    },
    stats() {
      return this.call('stats');
    },
    reset() {
      return this.call('reset');
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.disconnect();
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * The production server (apps/api/dist/src/main.js) on 127.0.0.1 with a fresh data dir.
 * `cpuProfDir` runs it under --cpu-prof; stop() then ends it with SIGUSR2 so the profile is written
 * (bench/lib/exit-on-signal.cjs: a plain exit, where Nest's shutdown hook would re-raise SIGTERM).
 */
/** `root`: the checkout whose build to run (default this one, or BENCH_ROOT). */
export async function startServer({ databaseUrl = null, env = {}, cpuProfDir = null, root = null } = {}) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'aws-bench-'));
  const args = [...serviceNodeArgs({ ...process.env, ...env })];
  if (cpuProfDir)
    args.push('--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`, '-r', join(ROOT, 'bench/lib/exit-on-signal.cjs'));
  if (process.env.BENCH_COUNT_QUERIES) args.push('-r', join(ROOT, 'bench/lib/count-queries.cjs'));
  args.push(join(root || process.env.BENCH_ROOT || ROOT, 'apps/api/dist/src/main.js'));
  const logs = [];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: serviceEnv({
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? '',
      APP_SECRET: 'bench-secret-not-for-production',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
      MODEL_HOSTS: 'any',
      LOGIN_LIMIT_PER_CLIENT: '100000',
      LOGIN_LIMIT_PER_USER: '100000',
      DEMO_LIMIT_PER_MINUTE: '100000',
      MAX_STREAMS_PER_USER: '100000',
      // scenario 5 runs 50 turns at once for one user: the per-user cap (default 4) would answer 429
      MAX_RUNS_PER_USER: '100000',
      ...(process.env.BENCH_COUNT_QUERIES
        ? { BENCH_QUERY_COUNTS_FILE: join(tmpdir(), `aws-bench-query-counts-${port}.json`) }
        : {}),
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (d) => {
    logs.push(String(d));
    if (logs.length > 200) logs.shift();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${logs.join('')}`);
    try {
      const r = await fetch(url + '/health');
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not become healthy:\n${logs.join('')}`);
    }
    await sleep(200);
  }
  return {
    pid: child.pid,
    url,
    logs,
    async stop() {
      // a child killed by a signal (scenario 8's kill -9) has exited too: its exitCode stays null
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill(cpuProfDir ? 'SIGUSR2' : 'SIGTERM');
        await Promise.race([exited, sleep(15_000)]);
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await exited;
        }
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A throwaway database on the Postgres server; drop() removes it (WITH FORCE). */
export async function createPgDatabase() {
  const { Client } = require(join(ROOT, 'node_modules/pg'));
  const admin = process.env.BENCH_PG_URL || process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `aws_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const c = new Client({ connectionString: admin });
  await c.connect();
  const version = (await c.query('SHOW server_version')).rows[0].server_version;
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(admin);
  u.pathname = '/' + name;
  return {
    name,
    url: u.toString(),
    version,
    async drop() {
      const d = new Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}

/** CPU seconds used so far by every process named `postgres` (the server's backends), and by the whole machine. */
export function otherCpu() {
  let postgres = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      postgres += (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
    } catch {
      /* the process ended meanwhile */
    }
  }
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = cpu[3] + (cpu[4] ?? 0);
  const busy = cpu.reduce((a, b) => a + b, 0) - idle;
  return { postgres, machineBusy: busy / CLK_TCK };
}
