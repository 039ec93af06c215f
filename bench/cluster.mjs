#!/usr/bin/env node
// `npm run bench:cluster` (or `BENCH_ONLY=8 npm run bench`): scenario 8, cluster mode against the single
// process, on a throwaway database on the machine's Postgres server (docs/performance.md, "Cluster
// (scenario 8)"). Several service processes, so it is a script of its own rather than a scenario of
// bench/run.mjs. Layouts, each a child process per role (bench/lib/processes.mjs startServer):
//   single      ROLE=all on its own database (the reference)
//   1 worker    ROLE=api + ROLE=worker on a second database
//   2 workers   a second ROLE=worker joins the same database (then a second ROLE=api for the streams)
// Measured:
//   queue hop   the fake provider's write of a turn's first token → the client's first `content` event
//               (both on the machine's monotonic clock, as scenario 2), 100 streamed turns one at a time
//   pickup      the client's receipt of `status queued` (sent by the API at admission) → `status running`
//               (sent by the worker once it has claimed and started the turn): both pass the same
//               NOTIFY fan-out, so the difference is the job's trip through graphile-worker and the claim
//   recovery    kill -9 of the worker carrying a long streamed turn → `status resumed` at the client,
//               with the default heartbeat (WORKER_HEARTBEAT_MS=5000, WORKER_DEAD_AFTER_MS=15000) and a fast one
//   throughput  32 clients, one project each, streamed turns back to back (provider 0 ms, 20 tokens);
//               turns/s and CPU per turn of each process from /proc/<pid>/stat
//
//   BENCH_QUICK=1            short runs (a smoke test of the harness)
//   BENCH_SKIP_BUILD=1       use the build already in apps/*/dist
//   BENCH_PG_URL             the Postgres server's admin URL (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_CLUSTER_CLIENTS    parallel clients of the throughput runs (default 32)
//   BENCH_CLUSTER_SECONDS    length of each throughput run (default 20)
//   BENCH_CLUSTER_FAST       fast heartbeat for the second recovery: "beat/dead" ms (default 1000/5000)
//   BENCH_STRICT=1           exit 1 when a target is missed
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openAiDelta, openAiDone, readStream, serviceClose, serviceDelta } from './lib/http.mjs';
import { cpuSeconds, createPgDatabase, ensureBuilt, otherCpu, ROOT, startFake, startServer } from './lib/processes.mjs';
import { machineFacts, table } from './lib/report.mjs';
import { BenchSetup, CHAT_TEXT_TOKENS, fakeText } from './lib/setup.mjs';
import { ms, percentile, round, sleep } from './lib/stats.mjs';
import { check, nsToMs } from './scenarios/common.mjs';
import { cleanup, cleanups } from './lib/cleanup.mjs';

const require = createRequire(import.meta.url);
const env = process.env;
const quick = env.BENCH_QUICK === '1';
const TURNS = quick ? 30 : 100;
const WARM = quick ? 10 : 20;
const CLIENTS = Number(env.BENCH_CLUSTER_CLIENTS || 32);
const SECONDS = Number(env.BENCH_CLUSTER_SECONDS || (quick ? 5 : 20));
const [FAST_BEAT, FAST_DEAD] = (env.BENCH_CLUSTER_FAST || '1000/5000').split('/').map(Number);
const DEFAULT_BEAT = 5000;
const DEFAULT_DEAD = 15000;
const SCENARIO = '8-cluster';

const log = (...a) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const started = [];
const killed = new Set();

/** p50/p95/p99/max of raw samples (ms). */
function dist(samples) {
  const s = samples.filter(Number.isFinite);
  return {
    n: s.length,
    p50: round(percentile(s, 50)),
    p95: round(percentile(s, 95)),
    p99: round(percentile(s, 99)),
    max: round(s.length ? Math.max(...s) : NaN),
  };
}
const signed = (x) => (x >= 0 ? `+${ms(x)}` : `−${ms(-x)}`);
const p50p95 = (d) => `p50 ${ms(d.p50)} · p95 ${ms(d.p95)}`;

/** A service process started for this bench, stopped at the end whatever happens. */
async function start(role, databaseUrl, extra = {}) {
  const server = await startServer({
    databaseUrl,
    env: {
      ROLE: role,
      WORKER_HEARTBEAT_MS: String(DEFAULT_BEAT),
      WORKER_DEAD_AFTER_MS: String(DEFAULT_DEAD),
      ...extra,
    },
  });
  server.role = role;
  started.push(server);
  cleanups.push(() => server.stop());
  log(`  ${role} pid ${server.pid} on ${server.url}`);
  return server;
}

const streamUrl = (api, slug, message = 'Say something short.') =>
  `${api.url}/agent/stream?message=${encodeURIComponent(message)}&project_slug=${slug}`;

function statusOf(ev) {
  if (ev.event !== 'status') return null;
  try {
    return JSON.parse(ev.data);
  } catch {
    return null;
  }
}

/**
 * Streamed turns one after another, taking `targets` in turn ({api, setup, slug}: a layout's API and
 * project; {direct: true}: the provider request last sent, replayed straight to the fake provider), so
 * every layout is measured under the same machine load (it comes and goes on a shared machine). Per
 * target: the queue hop (provider's first token → client's first `content`, shared monotonic clock)
 * and, in cluster mode, the pickup (`status queued` → `status running` at the client). The direct
 * target is one process hop with no service in between: the floor the service's hops stand on.
 */
async function hop(fake, targets) {
  await fake.reset();
  await fake.setTurn({ tokens: CHAT_TEXT_TOKENS });
  const expected = fakeText(CHAT_TEXT_TOKENS);
  const acc = targets.map(() => ({ relay: [], pickup: [], first: [], queuedFirst: null }));
  let last = null;
  for (let i = 0; i < WARM + TURNS; i++) {
    for (const [k, t] of targets.entries()) {
      let queuedNs = null;
      let runningNs = null;
      let firstStatus = null;
      const r = t.direct
        ? await readStream(fake.url + last.path, {
            method: 'POST',
            body: last.body,
            isContent: openAiDelta,
            isClose: openAiDone,
            keepEvents: false,
          })
        : await readStream(streamUrl(t.api, t.slug), {
            headers: t.setup.authHeader,
            isContent: serviceDelta,
            isClose: serviceClose,
            keepEvents: false,
            onEvent(ev) {
              const st = statusOf(ev);
              if (!st) return;
              firstStatus ??= st.state;
              if (st.state === 'queued' && queuedNs === null) queuedNs = process.hrtime.bigint();
              if (st.state === 'running' && runningNs === null) runningNs = process.hrtime.bigint();
            },
          });
      check(!r.error && r.status === 200, `${t.direct ? 'direct' : 'GET /agent/stream'}: ${r.error ?? r.status}`);
      check(r.contentText === expected, `streamed text differs: ${JSON.stringify(r.contentText.slice(0, 200))}`);
      if (!t.direct)
        check(r.closeAt !== null && r.done?.state === 'done', `no done/close (done.state = ${r.done?.state})`);
      const stats = await fake.stats();
      if (!t.direct) last = stats.recent.at(-1);
      if (i < WARM) continue;
      const a = acc[k];
      a.queuedFirst ??= firstStatus === 'queued';
      a.relay.push(nsToMs(r.firstContentNs, stats.timings.at(-1)?.firstTokenNs));
      a.first.push(r.firstContentAt);
      if (queuedNs !== null && runningNs !== null) a.pickup.push(nsToMs(runningNs, queuedNs));
    }
  }
  return acc.map((a) => ({
    turns: TURNS,
    stream_starts_with_queued: a.queuedFirst,
    token_to_client_ms: dist(a.relay),
    first_content_ms: dist(a.first),
    pickup_ms: a.pickup.length ? dist(a.pickup) : null,
  }));
}

/** CPU seconds so far of each Postgres backend serving database `name` (by pid). */
async function backendsCpu(pg, name) {
  const { rows } = await pg.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name]);
  const out = new Map();
  for (const { pid } of rows) {
    try {
      out.set(pid, cpuSeconds(pid));
    } catch {
      /* ended meanwhile */
    }
  }
  return out;
}

/**
 * CLIENTS clients, one project each, streamed turns back to back for SECONDS on `apis` (round robin):
 * turns/s and CPU per turn of every process in `procs`.
 */
async function throughput(ctx, apis, procs, prefix) {
  const { fake, setup, pg, dbName } = ctx;
  await fake.reset();
  await fake.setTurn({ tokens: CHAT_TEXT_TOKENS });
  const slugs = await setup.projects('plain', prefix, CLIENTS);
  const expected = fakeText(CHAT_TEXT_TOKENS);
  const one = async (i) => {
    const r = await readStream(streamUrl(apis[i % apis.length], slugs[i]), {
      headers: setup.authHeader,
      isContent: serviceDelta,
      isClose: serviceClose,
      keepEvents: false,
    });
    return !r.error && r.status === 200 && r.done?.state === 'done' && r.contentText === expected
      ? r.closeAt
      : (r.error ?? `done.state ${r.done?.state}`);
  };
  await Promise.all(slugs.map((_, i) => one(i))); // warm: every project has had a turn
  const cpu0 = procs.map((p) => cpuSeconds(p.pid));
  const other0 = otherCpu();
  const pg0 = await backendsCpu(pg, dbName);
  const t0 = performance.now();
  const until = t0 + SECONDS * 1000;
  let turns = 0;
  const errors = [];
  const latency = [];
  await Promise.all(
    slugs.map(async (_, i) => {
      while (performance.now() < until) {
        const r = await one(i);
        if (typeof r === 'number') {
          turns++;
          latency.push(r);
        } else errors.push(String(r).slice(0, 200));
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = procs.map((p, i) => ({
    role: p.role,
    pid: p.pid,
    cpu_ms_per_turn: round(((cpuSeconds(p.pid) - cpu0[i]) * 1000) / Math.max(1, turns)),
  }));
  const other1 = otherCpu();
  // backends of this database only (the server is shared); one that started meanwhile counts in full
  const pg1 = await backendsCpu(pg, dbName);
  let postgres = 0;
  for (const [pid, c] of pg1) postgres += c - (pg0.get(pid) ?? 0);
  return {
    clients: CLIENTS,
    seconds: round(seconds),
    turns,
    turns_per_s: round(turns / seconds, 1),
    errors: errors.length,
    first_errors: [...new Set(errors)].slice(0, 3),
    turn_ms: dist(latency),
    cpu,
    postgres_cpu_ms_per_turn: round((postgres * 1000) / Math.max(1, turns)),
    machine_busy_share: round((other1.machineBusy - other0.machineBusy) / seconds / 2, 2),
  };
}

/**
 * A long streamed turn on `api`; once its first token has reached the client, kill -9 the worker that
 * carries it (found through runs.worker_id, which holds the worker's pid) and time the `status
 * resumed` that another worker sends once it has taken the run over.
 */
async function recovery(ctx, api, workers, slug, pg) {
  const { fake, setup } = ctx;
  await fake.reset();
  await fake.enqueue({ tokens: 6000, tokenIntervalMs: 10 }); // a minute of tokens: still streaming at the kill
  await fake.setTurn({ tokens: CHAT_TEXT_TOKENS }); // the model call made again after the takeover
  let runId = null;
  let killing = null;
  let killedNs = null;
  let resumedNs = null;
  let victim = null;
  const r = await readStream(streamUrl(api, slug, 'Write at length.'), {
    headers: setup.authHeader,
    isContent: serviceDelta,
    isClose: serviceClose,
    keepEvents: false,
    onEvent(ev) {
      const st = statusOf(ev);
      if (st?.run_id) runId ??= st.run_id;
      if (st?.state === 'resumed' && resumedNs === null) resumedNs = process.hrtime.bigint();
      if (ev.event === 'content' && !killing) {
        killing = (async () => {
          await sleep(1000); // a second into the answer, as a real crash would be
          const { rows } = await pg.query('SELECT worker_id FROM runs WHERE id = $1', [runId]);
          victim = workers.find((w) => rows[0]?.worker_id?.includes(`-${w.pid}-`));
          check(victim, `no worker of ours carries run ${runId} (worker_id ${rows[0]?.worker_id})`);
          killed.add(victim.pid);
          process.kill(victim.pid, 'SIGKILL');
          killedNs = process.hrtime.bigint();
        })();
      }
    },
  });
  await killing;
  check(!r.error && r.status === 200, `recovery stream: ${r.error ?? r.status}`);
  check(resumedNs !== null, 'no status resumed reached the client');
  check(r.done?.state === 'done', `the resumed turn ended ${r.done?.state}`);
  const { rows } = await pg.query('SELECT worker_id, attempts FROM runs WHERE id = $1', [runId]).catch(() => ({
    rows: [],
  }));
  await victim.stop();
  return {
    victim,
    resumed_s: round(nsToMs(resumedNs, killedNs) / 1000, 2),
    taken_over_by_other: Boolean(rows[0]?.worker_id && !rows[0].worker_id.includes(`-${victim.pid}-`)),
  };
}

async function main() {
  process.chdir(ROOT);
  ensureBuilt(log);
  const load = { start: loadAverage() };
  log(`scenario 8 (cluster)${quick ? ' (quick)' : ''}; load average ${load.start}`);
  const fake = await startFake();
  cleanups.push(() => fake.stop());
  const { Client } = require(join(ROOT, 'node_modules/pg'));
  const result = { date: new Date().toISOString(), quick, load };

  // the single process (ROLE=all) and the cluster (ROLE=api + ROLE=worker), each on a database of its own
  const single = await createPgDatabase();
  cleanups.push(() => single.drop());
  result.postgres = single.version;
  log(`single process (ROLE=all) on ${single.name}`);
  const all = await start('all', single.url);
  const pgSingle = new Client({ connectionString: single.url });
  pgSingle.on('error', () => undefined); // the database is dropped WITH (FORCE) at the end
  await pgSingle.connect();
  cleanups.push(() => pgSingle.end());
  const ctxSingle = { fake, setup: new BenchSetup(all, fake), pg: pgSingle, dbName: single.name };
  await ctxSingle.setup.login();

  const db = await createPgDatabase();
  cleanups.push(() => db.drop());
  const pg = new Client({ connectionString: db.url });
  pg.on('error', () => undefined);
  log(`cluster on ${db.name}`);
  const api1 = await start('api', db.url); // alone first: it migrates
  await pg.connect();
  cleanups.push(() => pg.end());
  let workers = [await start('worker', db.url)];
  const ctx = { fake, setup: new BenchSetup(api1, fake), pg, dbName: db.name };
  await ctx.setup.login();

  const singleTarget = { api: all, setup: ctxSingle.setup, slug: await ctxSingle.setup.project('plain', 'hop') };
  const [hs, hd, h1] = await hop(fake, [
    singleTarget,
    { direct: true },
    { api: api1, setup: ctx.setup, slug: await ctx.setup.project('plain', 'hop') },
  ]);
  check(h1.stream_starts_with_queued, 'a cluster stream did not start with status queued');
  result.single = { hop: hs, direct_hop: hd.token_to_client_ms };
  result.one_worker = { hop: h1 };
  log(
    `  queue hop: single ${p50p95(hs.token_to_client_ms)}, 1 API + 1 worker ${p50p95(h1.token_to_client_ms)} ` +
      `(direct ${p50p95(hd.token_to_client_ms)}); pickup ${p50p95(h1.pickup_ms)}`,
  );

  result.single.throughput = await throughput(ctxSingle, [all], [all], 'tput');
  log(`  single: throughput ${result.single.throughput.turns_per_s}/s`);
  result.one_worker.throughput = await throughput(ctx, [api1], [api1, ...workers], 'tput');
  log(`  1 worker: throughput ${result.one_worker.throughput.turns_per_s}/s`);
  workers.push(await start('worker', db.url));
  result.two_workers = { throughput: await throughput(ctx, [api1], [api1, ...workers], 'tput') };
  log(`  2 workers: throughput ${result.two_workers.throughput.turns_per_s}/s`);

  const api2 = await start('api', db.url);
  const [hs2, hd2, h2] = await hop(fake, [
    singleTarget,
    { direct: true },
    { api: api2, setup: ctx.setup, slug: await ctx.setup.project('plain', 'hop2') },
  ]);
  result.single.hop_second_pass = hs2;
  result.single.direct_hop_second_pass = hd2.token_to_client_ms;
  result.two_workers.hop = h2;
  log(
    `  queue hop: single ${p50p95(hs2.token_to_client_ms)}, 2 APIs + 2 workers (second API) ${p50p95(h2.token_to_client_ms)} ` +
      `(direct ${p50p95(hd2.token_to_client_ms)}); pickup ${p50p95(h2.pickup_ms)}`,
  );
  await all.stop();

  // recovery with the default heartbeat, then with the fast one (workers restarted with it)
  result.recovery = [];
  const recover = async (beat, dead, slug) => {
    const r = await recovery(ctx, api2, workers, await ctx.setup.project('plain', slug), pg);
    workers = workers.filter((w) => w !== r.victim);
    result.recovery.push({
      heartbeat_ms: beat,
      dead_after_ms: dead,
      resumed_s: r.resumed_s,
      taken_over_by_other: r.taken_over_by_other,
    });
    log(`  recovery (beat ${beat} ms, dead after ${dead} ms): status resumed ${r.resumed_s} s after kill -9`);
  };
  await recover(DEFAULT_BEAT, DEFAULT_DEAD, 'crash-default');
  for (const w of workers) await w.stop();
  const fastEnv = { WORKER_HEARTBEAT_MS: String(FAST_BEAT), WORKER_DEAD_AFTER_MS: String(FAST_DEAD) };
  workers = await Promise.all([start('worker', db.url, fastEnv), start('worker', db.url, fastEnv)]);
  for (let i = 0; i < (quick ? 1 : 2); i++) {
    if (workers.length < 2) workers.push(await start('worker', db.url, fastEnv));
    await recover(FAST_BEAT, FAST_DEAD, `crash-fast-${i}`);
  }
  load.end = loadAverage();
  await cleanup();

  const entries = report(result);
  const facts = machineFacts({ postgres: result.postgres });
  console.log('\n' + table(entries) + '\n');
  console.log(
    `${facts.cpu}, ${facts.memory_gib} GiB, Node ${facts.node}, Postgres ${result.postgres}; load average ${load.start} → ${load.end}`,
  );
  const dir = join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'cluster.json');
  writeFileSync(file, JSON.stringify({ facts, result, entries }, null, 2) + '\n');
  log(`results: ${file}`);
  const missed = entries.filter((e) => !e.target_met).length;
  log(`${entries.length - missed} met, ${missed} missed`);
  if (missed && env.BENCH_STRICT === '1') process.exitCode = 1;
}

/** The rows of the table (report.mjs format): single process under "direct", cluster under "via service". */
function report(r) {
  const row = (title, fields) => ({
    scenario: SCENARIO,
    database: 'postgres',
    title,
    direct: '—',
    overhead: '—',
    ratio: null,
    ...fields,
  });
  const cpu = (t) =>
    t.cpu.map((c) => `${c.role} ${ms(c.cpu_ms_per_turn)}`).join(', ') + `, postgres ${ms(t.postgres_cpu_ms_per_turn)}`;
  const h1 = r.one_worker.hop;
  const h2 = r.two_workers.hop;
  const fast = r.recovery.filter((x) => x.heartbeat_ms !== DEFAULT_BEAT);
  const slow = r.recovery.filter((x) => x.heartbeat_ms === DEFAULT_BEAT);
  const t = { single: r.single.throughput, one: r.one_worker.throughput, two: r.two_workers.throughput };
  return [
    row('queue hop: provider first token → client first content', {
      direct:
        `single ${p50p95(r.single.hop.token_to_client_ms)}, ${p50p95(r.single.hop_second_pass.token_to_client_ms)}` +
        ` (provider → client direct ${p50p95(r.single.direct_hop)}, ${p50p95(r.single.direct_hop_second_pass)})`,
      service: `1 API+1 worker ${p50p95(h1.token_to_client_ms)}; 2 APIs+2 workers ${p50p95(h2.token_to_client_ms)}`,
      overhead: `cluster − single: ${signed(h1.token_to_client_ms.p50 - r.single.hop.token_to_client_ms.p50)} p50 (1 API+1 worker)`,
      target: 'p50 ≤ 2 ms single, ≤ 5 ms cluster',
      target_met:
        r.single.hop.token_to_client_ms.p50 <= 2 &&
        r.single.hop_second_pass.token_to_client_ms.p50 <= 2 &&
        h1.token_to_client_ms.p50 <= 5 &&
        h2.token_to_client_ms.p50 <= 5,
      median_ms: h1.token_to_client_ms.p50,
    }),
    row('job pickup: status queued → status running at the client', {
      service: `1 worker ${p50p95(h1.pickup_ms)}; 2 workers ${p50p95(h2.pickup_ms)}`,
      target: 'p50 ≤ 5 ms',
      target_met: h1.pickup_ms.p50 <= 5 && h2.pickup_ms.p50 <= 5,
      median_ms: h1.pickup_ms.p50,
    }),
    row('dead worker: kill -9 → status resumed at the client', {
      service:
        `beat ${DEFAULT_BEAT / 1000} s/dead ${DEFAULT_DEAD / 1000} s: ${slow.map((x) => `${x.resumed_s} s`).join(', ')}; ` +
        `beat ${FAST_BEAT / 1000} s/dead ${FAST_DEAD / 1000} s: ${fast.map((x) => `${x.resumed_s} s`).join(', ')}`,
      target: '≤ 30 s (default heartbeat)',
      target_met: slow.every((x) => x.resumed_s <= 30 && x.taken_over_by_other),
    }),
    row(`throughput: ${CLIENTS} projects in parallel, provider 0 ms`, {
      direct: `single ${t.single.turns_per_s}/s`,
      service: `1 worker ${t.one.turns_per_s}/s; 2 workers ${t.two.turns_per_s}/s (errors ${t.one.errors}+${t.two.errors})`,
      overhead: `CPU/turn single: ${cpu(t.single)} · 1 worker: ${cpu(t.one)} · 2 workers: ${cpu(t.two)}`,
      ratio: round(t.two.turns_per_s / t.one.turns_per_s, 2),
      target: 'measured (no target)',
      target_met: t.one.errors === 0 && t.two.errors === 0,
      throughput_per_s: t.two.turns_per_s,
    }),
  ];
}

main().catch(async (err) => {
  console.error(err);
  // a service process that ended on its own: its last log lines say why
  for (const s of started)
    if (!killed.has(s.pid) && !existsSync(`/proc/${s.pid}`))
      console.error(`${s.role} pid ${s.pid} exited; its last output:\n${s.logs.join('').slice(-4000)}`);
  await cleanup();
  process.exit(1);
});
