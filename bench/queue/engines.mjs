// Engine adapters for bench/queue-engines.mjs: one producer side (runs in the bench process) and one
// worker side (runs in a child process, bench/queue/worker.mjs) per engine, behind the same shape:
//   producer: enqueue(job, { tx, key }), enqueueBulk(jobs), cancelQueued(jobRef), close()
//   worker:   startWorker(options, handle) -> { stop() }
// The settings below are the ones the measurements in docs/decisions/cluster.md were taken with.
import pg from 'pg';

export const RECOVERY = {
  // graphile-worker keeps a dead worker's jobs locked for 4 h; we add a heartbeat table and a sweeper
  // that calls forceUnlockWorkers() for workers silent longer than deadAfterMs.
  graphile: { heartbeatMs: 1000, deadAfterMs: 5000, sweepMs: 1000, pollIntervalMs: 1000 },
  // pg-boss 10 has no heartbeat: an active job expires expireInSeconds after it started, found by
  // maintenance (every maintenanceIntervalSeconds), then retried.
  pgboss: { expireInSeconds: 10, maintenanceIntervalSeconds: 1, pollingIntervalSeconds: 0.5 },
  // BullMQ renews a lock every lockDuration/2; the stalled checker runs every stalledInterval.
  bullmq: { lockDuration: 10000, stalledInterval: 5000 },
};

const TASK = 'bench';

// ---------------------------------------------------------------- graphile-worker
async function graphileProducer(env) {
  const { makeWorkerUtils } = await import('graphile-worker');
  const utils = await makeWorkerUtils({ connectionString: env.databaseUrl });
  await utils.migrate();
  const pool = new pg.Pool({ connectionString: env.databaseUrl, max: 4 });
  await pool.query(
    'create table if not exists bench_runs (id serial primary key, payload jsonb not null);' +
      'create table if not exists bench_heartbeats (worker_id text primary key, seen_at timestamptz not null)',
  );
  const add = (client, job, opts) =>
    client.query(
      'select id from graphile_worker.add_job($1, $2::json, queue_name => $3, run_at => $4, job_key => $5, max_attempts => 5)',
      [TASK, JSON.stringify(job), opts.key ? `project:${opts.key}` : null, opts.runAt ?? null, opts.jobKey ?? null],
    );
  return {
    async enqueue(job, opts = {}) {
      const client = await pool.connect();
      try {
        if (!opts.tx) {
          const t0 = now();
          await add(client, job, opts);
          return t0;
        }
        await client.query('begin');
        await client.query('insert into bench_runs (payload) values ($1)', [job]);
        await add(client, job, opts);
        const t0 = now();
        await client.query('commit');
        return t0;
      } finally {
        client.release();
      }
    },
    async enqueueBulk(jobs) {
      await pool.query(
        'select graphile_worker.add_jobs(array(select row($1::text, p, null, null, null, null, null, null)::graphile_worker.job_spec from json_array_elements($2::json) p))',
        [TASK, JSON.stringify(jobs)],
      );
    },
    async enqueueDelayed(job, delayMs) {
      const jobKey = `cancel-${job.i}`;
      await add(pool, job, { runAt: new Date(Date.now() + delayMs), jobKey });
      return jobKey;
    },
    async cancelQueued(jobKey) {
      await pool.query('select graphile_worker.remove_job($1)', [jobKey]);
    },
    async close() {
      await utils.release();
      await pool.end();
    },
  };
}

async function graphileWorker(env, opts, handle) {
  const { run } = await import('graphile-worker');
  const { EventEmitter } = await import('node:events');
  const rec = RECOVERY.graphile;
  const pool = new pg.Pool({ connectionString: env.databaseUrl, max: 2 });
  const ids = [];
  const events = new EventEmitter();
  // graphile-worker 0.17 locks jobs with the id of the worker pool (locked_by), so that is what we beat.
  events.on('pool:create', ({ workerPool }) => ids.push(workerPool.id));
  const runner = await run({
    events,
    connectionString: env.databaseUrl,
    concurrency: opts.concurrency,
    pollInterval: rec.pollIntervalMs,
    noHandleSignals: true,
    logger: await quietGraphileLogger(),
    taskList: { [TASK]: async (payload) => handle(payload) },
  });
  const beat = () =>
    pool.query(
      'insert into bench_heartbeats (worker_id, seen_at) select unnest($1::text[]), now() on conflict (worker_id) do update set seen_at = now()',
      [ids],
    );
  const sweep = async () => {
    const { rows } = await pool.query(
      'delete from bench_heartbeats where seen_at < now() - make_interval(secs => $1) returning worker_id',
      [rec.deadAfterMs / 1000],
    );
    if (rows.length > 0) {
      await pool.query('select graphile_worker.force_unlock_workers($1::text[])', [rows.map((r) => r.worker_id)]);
      await pool.query(`select pg_notify('jobs:insert', '{"count":1}')`);
    }
  };
  await beat();
  const timers = [
    setInterval(() => beat().catch(warn), rec.heartbeatMs),
    setInterval(() => sweep().catch(warn), rec.sweepMs),
  ];
  return {
    async stop() {
      timers.forEach(clearInterval);
      await runner.stop();
      await pool.end();
    },
  };
}

const warn = (e) => console.error('bench worker:', e.message);

async function quietGraphileLogger() {
  // graphile-worker logs every job at info; keep errors only so the bench output stays readable.
  const { Logger } = await import('graphile-worker');
  return new Logger(() => (level, message) => {
    if (level === 'error') console.error(message);
  });
}

// ---------------------------------------------------------------- pg-boss
async function pgbossProducer(env) {
  const { default: PgBoss } = await import('pg-boss');
  const boss = new PgBoss({ connectionString: env.databaseUrl, max: 4, supervise: false, schedule: false });
  boss.on('error', (e) => console.error('pg-boss', e.message));
  await boss.start();
  await boss.createQueue(TASK, { name: TASK, policy: 'standard', retryLimit: 5, retryDelay: 0 });
  // One queue for per-project work: the 'singleton' policy allows one active job per singletonKey.
  await boss.createQueue(`${TASK}-project`, { name: `${TASK}-project`, policy: 'singleton' });
  const pool = new pg.Pool({ connectionString: env.databaseUrl, max: 4 });
  await pool.query('create table if not exists bench_runs (id serial primary key, payload jsonb not null)');
  const queueOf = (opts) => (opts.key ? `${TASK}-project` : TASK);
  const sendOpts = (opts) => ({
    singletonKey: opts.key ?? undefined,
    expireInSeconds: RECOVERY.pgboss.expireInSeconds,
    retryLimit: 5,
    retryDelay: 0,
  });
  return {
    async enqueue(job, opts = {}) {
      if (!opts.tx) {
        const t0 = now();
        await boss.send(queueOf(opts), job, sendOpts(opts));
        return t0;
      }
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query('insert into bench_runs (payload) values ($1)', [job]);
        const db = { executeSql: (text, values) => client.query(text, values) };
        await boss.send(queueOf(opts), job, { ...sendOpts(opts), db });
        const t0 = now();
        await client.query('commit');
        return t0;
      } finally {
        client.release();
      }
    },
    async enqueueBulk(jobs) {
      await boss.insert(jobs.map((data) => ({ name: TASK, data })));
    },
    async enqueueDelayed(job, delayMs) {
      return boss.send(TASK, job, { startAfter: new Date(Date.now() + delayMs) });
    },
    async cancelQueued(id) {
      await boss.cancel(TASK, id);
    },
    async close() {
      await boss.stop({ graceful: false, wait: true });
      await pool.end();
    },
  };
}

async function pgbossWorker(env, opts, handle) {
  const { default: PgBoss } = await import('pg-boss');
  const rec = RECOVERY.pgboss;
  const boss = new PgBoss({
    connectionString: env.databaseUrl,
    max: 4,
    schedule: false,
    maintenanceIntervalSeconds: rec.maintenanceIntervalSeconds,
  });
  boss.on('error', (e) => console.error('pg-boss', e.message));
  await boss.start();
  // pg-boss 10 has no concurrency option: a work() loop fetches up to batchSize jobs, runs them and
  // then waits out the polling interval, so concurrency = several loops per queue (and batches for
  // the throughput measurement).
  const work = { pollingIntervalSeconds: rec.pollingIntervalSeconds, batchSize: opts.batchSize ?? 1 };
  for (let c = 0; c < opts.concurrency; c++) {
    for (const name of [TASK, `${TASK}-project`]) {
      await boss.work(name, work, async (jobs) => Promise.all(jobs.map((job) => handle(job.data))));
    }
  }
  return {
    async stop() {
      await boss.stop({ graceful: false, wait: true });
    },
  };
}

// ---------------------------------------------------------------- BullMQ
// Groups (one job at a time per key) are BullMQ Pro; the open-source way is one queue per project
// with a global concurrency of 1, and workers that open a Worker per project queue.
const bullQueueOf = (key) => (key ? `${TASK}-p-${key}` : TASK);

async function bullmqProducer(env) {
  const { Queue } = await import('bullmq');
  const connection = { url: env.redisUrl };
  const queues = new Map();
  const queue = async (name) => {
    if (!queues.has(name)) {
      const q = new Queue(name, { connection, prefix: env.prefix });
      if (name !== TASK) await q.setGlobalConcurrency(1);
      queues.set(name, q);
    }
    return queues.get(name);
  };
  const jobOpts = { removeOnComplete: true, removeOnFail: 1000, attempts: 5 };
  return {
    async enqueue(job, opts = {}) {
      const q = await queue(bullQueueOf(opts.key));
      const t0 = now();
      await q.add(TASK, job, jobOpts);
      return t0;
    },
    async enqueueBulk(jobs) {
      const q = await queue(TASK);
      for (let i = 0; i < jobs.length; i += 500) {
        await q.addBulk(jobs.slice(i, i + 500).map((data) => ({ name: TASK, data, opts: jobOpts })));
      }
    },
    async enqueueDelayed(job, delayMs) {
      const q = await queue(TASK);
      return (await q.add(TASK, job, { ...jobOpts, delay: delayMs })).id;
    },
    async cancelQueued(id) {
      await (await queue(TASK)).remove(id);
    },
    async prepareProjects(keys) {
      for (const k of keys) await queue(bullQueueOf(k));
    },
    async close() {
      for (const q of queues.values()) {
        await q.obliterate({ force: true }).catch(() => {});
        await q.close();
      }
    },
  };
}

async function bullmqWorker(env, opts, handle) {
  const { Worker } = await import('bullmq');
  const rec = RECOVERY.bullmq;
  const names = [TASK, ...(opts.projects ?? []).map((k) => bullQueueOf(k))];
  const workers = names.map(
    (name) =>
      new Worker(name, async (job) => handle(job.data), {
        connection: { url: env.redisUrl },
        prefix: env.prefix,
        concurrency: opts.concurrency,
        lockDuration: rec.lockDuration,
        stalledInterval: rec.stalledInterval,
        maxStalledCount: 2,
      }),
  );
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  return {
    async stop() {
      await Promise.all(workers.map((w) => w.close(true)));
    },
  };
}

export const ENGINES = {
  'graphile-worker': { producer: graphileProducer, worker: graphileWorker, postgres: true },
  'pg-boss': { producer: pgbossProducer, worker: pgbossWorker, postgres: true },
  bullmq: { producer: bullmqProducer, worker: bullmqWorker, postgres: false },
};

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes. */
export function now() {
  return performance.timeOrigin + performance.now();
}
