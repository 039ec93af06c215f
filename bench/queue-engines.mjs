#!/usr/bin/env node
// `npm run bench:queue`: measures the three queue engines issue 15 chooses between (graphile-worker,
// pg-boss, BullMQ) on this machine; docs/decisions/cluster.md holds the results and the choice.
// Each engine gets a throwaway Postgres database (dropped afterwards) or its own Redis key prefix,
// and its workers run as child processes (bench/queue/worker.mjs):
//   1. pickup latency: one idle worker, N jobs one after another, enqueue (or COMMIT) -> handler start
//   2. throughput: 2 workers x concurrency 10, trivial jobs; jobs/s and worker CPU per job
//   3. serialisation: 3 projects x 4 jobs of 150 ms, 2 workers x concurrency 4; overlap per project
//   4. recovery: kill -9 the worker running a long job; time until another worker starts it again
//   5. cancel of a queued (delayed) job: it must never start
//
//   QUEUE_BENCH_ENGINES=graphile-worker,pg-boss,bullmq   QUEUE_BENCH_RUNS=2 (each measurement, for spread)
//   QUEUE_BENCH_N=500 (latency jobs; pg-boss polls, so it gets QUEUE_BENCH_N_POLL=100)
//   QUEUE_BENCH_THROUGHPUT=2000   BENCH_PG_URL / REDIS_URL (default redis://127.0.0.1:6379)
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ENGINES, RECOVERY } from './queue/engines.mjs';
import { createPgDatabase, ROOT } from './lib/processes.mjs';
import { percentile, round } from './lib/stats.mjs';

const ENGINE_NAMES = (process.env.QUEUE_BENCH_ENGINES || 'graphile-worker,pg-boss,bullmq').split(',');
const RUNS = Number(process.env.QUEUE_BENCH_RUNS || 2);
const N = Number(process.env.QUEUE_BENCH_N || 500);
const N_POLL = Number(process.env.QUEUE_BENCH_N_POLL || 100);
const THROUGHPUT = Number(process.env.QUEUE_BENCH_THROUGHPUT || 2000);
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

class Child {
  constructor(engine, config) {
    this.proc = fork(join(ROOT, 'bench/queue/worker.mjs'), [engine, JSON.stringify(config)], { stdio: 'inherit' });
    this.count = 0;
    this.waiters = [];
    this.proc.on('message', (m) => {
      if (m.t === 'count') this.count = m.n;
      for (const w of [...this.waiters]) if (w.test(m)) w.resolve(m);
      this.waiters = this.waiters.filter((w) => !w.done);
    });
  }
  next(test, timeoutMs = 120000) {
    return new Promise((resolve, reject) => {
      const w = { test, done: false };
      const timer = setTimeout(() => {
        w.done = true;
        reject(new Error(`timed out waiting for a worker message after ${timeoutMs} ms`));
      }, timeoutMs);
      w.resolve = (m) => {
        w.done = true;
        clearTimeout(timer);
        resolve(m);
      };
      this.waiters.push(w);
    });
  }
  async ask(t, reply) {
    const p = this.next((m) => m.t === reply);
    this.proc.send({ t });
    return p;
  }
  async stop() {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.send({ t: 'stop' });
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10000))]);
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
  }
}

async function workers(engine, env, count, opts) {
  const children = Array.from({ length: count }, () => new Child(engine, { env, ...opts }));
  await Promise.all(children.map((c) => c.next((m) => m.t === 'ready')));
  return children;
}

const onAny = (children, test, timeoutMs) => Promise.race(children.map((c) => c.next(test, timeoutMs)));
const stat = (xs) => ({
  n: xs.length,
  p50: round(percentile(xs, 50)),
  p95: round(percentile(xs, 95)),
  p99: round(percentile(xs, 99)),
});

async function latency(engine, env, producer, tx) {
  const [child] = await workers(engine, env, 1, { concurrency: 1 });
  const n = engine === 'pg-boss' ? N_POLL : N;
  const samples = [];
  for (let i = 0; i < n; i++) {
    const started = child.next((m) => m.t === 'start' && m.i === i);
    const t0 = await producer.enqueue({ i, r: 1 }, { tx });
    samples.push((await started).at - t0);
  }
  await child.stop();
  return stat(samples);
}

async function throughput(engine, env, producer) {
  const children = await workers(engine, env, 2, { concurrency: 10, batchSize: 10 });
  await Promise.all(children.map((c) => c.ask('reset', 'reset-ok')));
  const jobs = Array.from({ length: THROUGHPUT }, (_, i) => ({ i }));
  const t0 = performance.now();
  await producer.enqueueBulk(jobs);
  while (children.reduce((a, c) => a + c.count, 0) < THROUGHPUT) await new Promise((r) => setTimeout(r, 10));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = await Promise.all(children.map((c) => c.ask('cpu', 'cpu')));
  await Promise.all(children.map((c) => c.stop()));
  const cpuMs = cpu.reduce((a, c) => a + c.userMs + c.systemMs, 0);
  return { jobsPerSecond: round(THROUGHPUT / seconds, 0), workerCpuMsPerJob: round(cpuMs / THROUGHPUT, 3) };
}

async function serialisation(engine, env, producer) {
  const projects = ['a', 'b', 'c'];
  await producer.prepareProjects?.(projects);
  const children = await workers(engine, env, 2, { concurrency: 4, projects });
  const spans = new Map();
  for (const c of children) {
    c.proc.on('message', (m) => {
      if (m.t === 'start') spans.set(m.i, { project: m.project, start: m.at });
      if (m.t === 'end') spans.get(m.i).end = m.at;
    });
  }
  let i = 0;
  for (let round = 0; round < 4; round++) {
    for (const project of projects) await producer.enqueue({ i: i++, r: 1, ms: 150, project }, { key: project });
  }
  const deadline = Date.now() + 60000;
  while ([...spans.values()].filter((s) => s.end).length < i && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  await Promise.all(children.map((c) => c.stop()));
  const all = [...spans.values()].filter((s) => s.end);
  let sameProjectOverlaps = 0;
  let maxParallel = 0;
  for (const a of all) {
    const running = all.filter((b) => b.start <= a.start && b.end > a.start);
    maxParallel = Math.max(maxParallel, new Set(running.map((b) => b.project)).size);
    sameProjectOverlaps += running.filter((b) => b !== a && b.project === a.project).length;
  }
  const wall = Math.max(...all.map((s) => s.end)) - Math.min(...all.map((s) => s.start));
  return {
    jobs: i,
    finished: all.length,
    sameProjectOverlaps,
    maxProjectsInParallel: maxParallel,
    wallMs: round(wall, 0),
  };
}

async function recovery(engine, env, producer) {
  const children = await workers(engine, env, 2, { concurrency: 1 });
  const first = onAny(children, (m) => m.t === 'start' && m.i === 'long');
  await producer.enqueue({ i: 'long', r: 1, ms: 600000 }, {});
  const started = await first;
  await new Promise((r) => setTimeout(r, 1000)); // the job has been running for a second
  const victim = children.find((c) => c.proc.pid === started.pid);
  const survivor = children.find((c) => c !== victim);
  const again = survivor.next((m) => m.t === 'start' && m.i === 'long', 120000);
  const killedAt = performance.timeOrigin + performance.now();
  victim.proc.kill('SIGKILL');
  const resumed = await again.catch(() => null);
  await survivor.stop();
  return { resumedAfterMs: resumed ? round(resumed.at - killedAt, 0) : null };
}

async function cancelQueued(engine, env, producer) {
  const [child] = await workers(engine, env, 1, { concurrency: 2 });
  let cancelledStarted = false;
  child.proc.on('message', (m) => {
    if (m.t === 'start' && m.i === 'cancelled') cancelledStarted = true;
  });
  const ref = await producer.enqueueDelayed({ i: 'cancelled', r: 1 }, 1500);
  await producer.cancelQueued(ref);
  const marker = child.next((m) => m.t === 'start' && m.i === 'marker', 30000);
  await producer.enqueueDelayed({ i: 'marker', r: 1 }, 2000);
  await marker;
  await new Promise((r) => setTimeout(r, 500));
  await child.stop();
  return { cancelledJobStarted: cancelledStarted };
}

async function withEngine(engine, fn) {
  const db = ENGINES[engine].postgres ? await createPgDatabase() : null;
  const env = {
    databaseUrl: db?.url ?? null,
    redisUrl: REDIS_URL,
    prefix: `qbench${process.pid}${Math.random().toString(36).slice(2, 6)}`,
  };
  const producer = await ENGINES[engine].producer(env);
  try {
    return await fn(env, producer);
  } finally {
    await producer.close();
    await db?.drop();
  }
}

const results = {
  machine: { loadavgAtStart: loadavg().map((x) => round(x, 2)), node: process.version },
  settings: RECOVERY,
  engines: {},
};
for (const engine of ENGINE_NAMES) {
  const r = (results.engines[engine] = {
    latency: [],
    latencyInTransaction: [],
    throughput: [],
    serialisation: [],
    recovery: [],
    cancelQueued: [],
  });
  for (let run = 0; run < RUNS; run++) {
    console.error(`${engine}: run ${run + 1}/${RUNS}`);
    await withEngine(engine, async (env, producer) => {
      r.latency.push(await latency(engine, env, producer, false));
      if (ENGINES[engine].postgres) r.latencyInTransaction.push(await latency(engine, env, producer, true));
      r.throughput.push(await throughput(engine, env, producer));
      r.serialisation.push(await serialisation(engine, env, producer));
      r.recovery.push(await recovery(engine, env, producer));
      r.cancelQueued.push(await cancelQueued(engine, env, producer));
    });
    console.error(JSON.stringify(r));
  }
}
results.machine.loadavgAtEnd = loadavg().map((x) => round(x, 2));
const out = join(ROOT, 'bench/results/queue-engines.json');
writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
console.log(JSON.stringify(results, null, 2));
console.error(`written to ${out}`);
