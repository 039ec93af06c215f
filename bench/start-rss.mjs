#!/usr/bin/env node
// `npm run bench:start`: start times and idle memory of the whole service (docs/performance.md
// "Start and memory"): first start (empty DATA_DIR: initdb, migrations, seed) and warm start to
// /health, idle RSS and PSS of Node plus every embedded database process after boot and after 1,000
// turns, and a kill -9 of the service followed by a start on the same DATA_DIR (time, old session kept).
//
//   BENCH_ROOT=/other/checkout   measure another build (e.g. main's) with this harness
//   BENCH_DB=embedded|postgres   default embedded; postgres = a throwaway database on the machine's
//                                server (whose memory is not the service's and is not counted)
//   BENCH_TURNS=1000             sync chat turns between the two memory readings
//   BENCH_SKIP_BUILD=1           use the build already in apps/*/dist
//   BENCH_SETTLE_MS=15000        idle time before each memory reading
import { execSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchSetup, CHAT_TEXT_TOKENS } from './lib/setup.mjs';
import { cannon, errorCount } from './lib/load.mjs';
import { ADMIN, cpuSeconds, createPgDatabase, freePort, ROOT, startFake } from './lib/processes.mjs';
import { Api } from './lib/http.mjs';
import { sleep } from './lib/stats.mjs';
import { serviceNodeArgs, serviceEnv } from '../scripts/service-process.mjs';

const env = process.env;
const target = env.BENCH_ROOT || ROOT;
const dbKind = env.BENCH_DB || 'embedded';
const turns = Number(env.BENCH_TURNS || 1000);
// idle time before a memory reading: V8's memory reducer runs and the pool closes connections idle
// for 10 s (pg's default), as they would on a service nobody is using
const SETTLE_MS = Number(env.BENCH_SETTLE_MS || 15_000);
const MiB = 1024 * 1024;
const CONNECTIONS = 10;
const log = (...a) => console.log(`[start-rss ${new Date().toISOString().slice(11, 19)}]`, ...a);

function children(pid) {
  const out = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(e));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** RSS and PSS (shared pages split between the processes that map them) summed over the service. */
function serviceMemory(nodePid, dataDir) {
  const pids = [nodePid];
  const lock = join(dataDir, 'postgres', 'postmaster.pid');
  if (existsSync(lock)) {
    const pm = Number(readFileSync(lock, 'utf8').split('\n')[0]);
    pids.push(pm, ...children(pm));
  }
  let rss = 0;
  let pss = 0;
  let nodeRss = 0;
  for (const pid of pids) {
    try {
      const roll = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(roll)?.[1] ?? 0) * 1024;
      rss += kb('Rss');
      pss += kb('Pss');
      if (pid === nodePid) nodeRss = kb('Rss');
    } catch {
      /* gone */
    }
  }
  return {
    processes: pids.length,
    rss_mib: +(rss / MiB).toFixed(1),
    pss_mib: +(pss / MiB).toFixed(1),
    node_rss_mib: +(nodeRss / MiB).toFixed(1),
  };
}

async function startService(dataDir, databaseUrl) {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [...serviceNodeArgs(env), join(target, 'apps/api/dist/src/main.js')], {
    cwd: target,
    env: serviceEnv({
      ...env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? '',
      APP_SECRET: 'bench-secret-not-for-production',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
      LOGIN_LIMIT_PER_CLIENT: '100000',
      LOGIN_LIMIT_PER_USER: '100000',
      MAX_RUNS_PER_USER: String(CONNECTIONS),
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${out}`);
    try {
      if ((await fetch(url + '/health')).status === 200) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`no /health in 120 s:\n${out}`);
    await sleep(25);
  }
  const seconds = +((performance.now() - t0) / 1000).toFixed(2);
  const exited = new Promise((r) => child.once('exit', r));
  return {
    pid: child.pid,
    url,
    seconds,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}

async function main() {
  if (!env.BENCH_ROOT && env.BENCH_SKIP_BUILD !== '1') {
    execSync('node scripts/ensure-install.mjs', { stdio: 'inherit', cwd: ROOT });
    execSync('npx nx run-many -t build --outputStyle=static', {
      stdio: 'inherit',
      cwd: ROOT,
      env: { ...env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
    });
  }
  const fake = await startFake();
  const pg = dbKind === 'postgres' ? await createPgDatabase() : null;
  const dataDir = mkdtempSync(join(tmpdir(), 'aws-start-rss-'));
  const r = { root: target, database: dbKind };
  let svc = null;
  try {
    svc = await startService(dataDir, pg?.url);
    r.first_start_s = svc.seconds;
    await sleep(SETTLE_MS);
    r.idle_after_boot = serviceMemory(svc.pid, dataDir);
    log('first start', r.first_start_s, 's;', r.idle_after_boot);

    const setup = new BenchSetup(svc, fake);
    await setup.login();
    // one project per connection: a project runs one turn at a time (a second gets 409)
    const slugs = await setup.projects('plain', 'bench-rss', CONNECTIONS);
    await fake.setTurn({ tokens: CHAT_TEXT_TOKENS });
    const bodies = slugs.map((slug) => JSON.stringify({ message: 'Say something short.', project_slug: slug }));
    const cpu0 = cpuSeconds(svc.pid);
    const load = await cannon({
      url: svc.url + '/agent/chat',
      method: 'POST',
      headers: { ...setup.authHeader, 'content-type': 'application/json' },
      bodies,
      connections: CONNECTIONS,
      amount: turns,
    });
    r.turn_errors = errorCount(load.result);
    // Node's CPU only (the database's processes are not counted): compares Node settings such as the
    // young generation's size, which trade memory for garbage-collection work
    r.node_cpu_ms_per_turn = Math.round(((cpuSeconds(svc.pid) - cpu0) * 1e6) / turns) / 1000;
    if (r.turn_errors) log(`${r.turn_errors} turns failed; answers by status:`, load.statuses);
    await sleep(SETTLE_MS);
    r.idle_after_turns = serviceMemory(svc.pid, dataDir);
    log(`after ${turns} turns (Node CPU ${r.node_cpu_ms_per_turn} ms/turn)`, r.idle_after_turns);

    await svc.stop();
    svc = await startService(dataDir, pg?.url);
    r.warm_start_s = svc.seconds;
    await sleep(SETTLE_MS);
    r.idle_after_warm_start = serviceMemory(svc.pid, dataDir);
    log('warm start', r.warm_start_s, 's;', r.idle_after_warm_start);

    // kill -9, then a start on the same DATA_DIR must come back with the old session
    const session = new Api(svc.url);
    await session.post('/auth/login', ADMIN, { expect: 200 });
    await svc.stop('SIGKILL');
    svc = await startService(dataDir, pg?.url);
    r.kill9_restart_s = svc.seconds;
    const again = new Api(svc.url);
    again.cookie = session.cookie;
    r.kill9_session_kept = (await again.get('/auth/me')).status === 200;
    log('after kill -9', r.kill9_restart_s, 's; session kept:', r.kill9_session_kept);
  } finally {
    await svc?.stop();
    await fake.stop();
    await pg?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(JSON.stringify(r, null, 2));
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(ROOT, 'bench/results', `start-rss-${dbKind}${env.BENCH_ROOT ? '-other' : ''}.json`);
  writeFileSync(file, JSON.stringify(r, null, 2) + '\n');
  log('results:', file);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
