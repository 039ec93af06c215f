#!/usr/bin/env node
// `npm run bench`: the benchmark suite (docs/performance.md says how to read it).
// Builds (unless BENCH_SKIP_BUILD=1), starts a fake OpenAI-compatible provider and the production
// server as child processes on 127.0.0.1, sets everything up through the public API, runs each
// scenario on the embedded Postgres server and on a throwaway database on the machine's server, prints one table and writes
// bench/results/latest.json.
//
//   BENCH_QUICK=1          short runs (a smoke test of the harness, not figures to quote)
//   BENCH_ONLY=1,2         only these scenarios (numbers 1–8; 8, cluster mode, runs bench/cluster.mjs
//                          after the others, and only when named here)
//   BENCH_DB=embedded|postgres|both (default both)
//   BENCH_SKIP_BUILD=1     use the build already in apps/*/dist
//   BENCH_CPU_PROF=1       run the server under --cpu-prof; profiles go to a temp dir (printed)
//   BENCH_STRICT=1         exit 1 when a target is missed (harness errors always exit 1)
//   BENCH_WRITE_DOCS=1|0   copy the table into docs/performance.md (default: only on a full run)
//   BENCH_PG_URL           the Postgres server's admin URL (default postgres://postgres@127.0.0.1:5432/postgres)
//   BENCH_OTLP=1           tracing on: the server exports its spans to a local OTLP/HTTP receiver
//   BENCH_ROOT=<checkout>  run another checkout's build (e.g. main's) with this harness
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOtlpSink } from './lib/otlp-sink.mjs';
import { BenchSetup } from './lib/setup.mjs';
import { createPgDatabase, ensureBuilt, memory, ROOT, startFake, startServer } from './lib/processes.mjs';
import { machineFacts, table, updateDocs, writeResults } from './lib/report.mjs';
import * as s1 from './scenarios/s1-sync-turn.mjs';
import * as s2 from './scenarios/s2-sse-turn.mjs';
import * as s3 from './scenarios/s3-tool-turn.mjs';
import * as s4 from './scenarios/s4-held-streams.mjs';
import * as s5 from './scenarios/s5-sustained.mjs';
import * as s6 from './scenarios/s6-graph.mjs';
import * as s7 from './scenarios/s7-studio.mjs';
import { cleanup, cleanups } from './lib/cleanup.mjs';

const SCENARIOS = { 1: s1, 2: s2, 3: s3, 4: s4, 5: s5, 6: s6, 7: s7 };
// Scenario 8 (cluster mode) needs several service processes on a database of its own: its own script,
// bench/cluster.mjs (`npm run bench:cluster`), run here as a child after the others when BENCH_ONLY names it.
const CLUSTER = 8;
const env = process.env;
const quick = env.BENCH_QUICK === '1';
const requested = env.BENCH_ONLY
  ? env.BENCH_ONLY.split(',').map((s) => Number(s.trim()))
  : Object.keys(SCENARIOS).map(Number);
for (const n of requested) if (!SCENARIOS[n] && n !== CLUSTER) throw new Error(`BENCH_ONLY: no scenario ${n} (1–8)`);
const only = requested.filter((n) => SCENARIOS[n]);
const dbChoice = (env.BENCH_DB || 'both').toLowerCase();
const databases = dbChoice === 'both' ? ['embedded', 'postgres'] : [dbChoice];
for (const d of databases)
  if (d !== 'embedded' && d !== 'postgres') throw new Error(`BENCH_DB must be embedded, postgres or both, not ${d}`);
const fullRun = !quick && !env.BENCH_ONLY && dbChoice === 'both';
const writeDocs = env.BENCH_WRITE_DOCS ? env.BENCH_WRITE_DOCS === '1' : fullRun;

const log = (...a) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);

/** Starts measuring the peak RSS afresh (writing 5 to clear_refs resets VmHWM). */
function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function main() {
  process.chdir(ROOT);
  ensureBuilt(log);
  if (!only.length) return runCluster();
  const profDir = env.BENCH_CPU_PROF === '1' ? mkdtempSync(join(tmpdir(), 'aws-bench-prof-')) : null;
  log(`scenarios ${only.join(',')} on ${databases.join(' + ')}${quick ? ' (quick)' : ''}`);

  const fake = await startFake();
  cleanups.push(() => fake.stop());
  const otlp = env.BENCH_OTLP === '1' ? await startOtlpSink() : null;
  if (otlp) {
    cleanups.push(() => otlp.stop());
    log(`tracing on: spans to ${otlp.endpoint}`);
  }
  const entries = [];
  let postgresVersion = null;
  for (const database of databases) {
    const pg = database === 'postgres' ? await createPgDatabase() : null;
    if (pg) {
      postgresVersion = pg.version;
      cleanups.push(() => pg.drop());
    }
    const server = await startServer({
      databaseUrl: pg?.url ?? null,
      cpuProfDir: profDir,
      env: otlp ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint } : {},
    });
    cleanups.push(() => server.stop());
    log(
      `${database}: server pid ${server.pid} on ${server.url}, fake provider pid ${fake.pid}${pg ? `, database ${pg.name}` : ''}`,
    );
    const setup = new BenchSetup(server, fake);
    await setup.login();
    const ctx = { database, quick, setup, server, fake, log };
    for (const n of only) {
      const sc = SCENARIOS[n];
      resetPeak(server.pid);
      const t0 = Date.now();
      log(`${database}: ${sc.id} — ${sc.title}…`);
      let e;
      try {
        e = await sc.run(ctx);
      } catch (err) {
        e = {
          scenario: sc.id,
          database,
          title: sc.title,
          target: sc.target,
          target_met: false,
          error: String(err?.message ?? err)
            .split('\n')[0]
            .slice(0, 300),
          figures: {},
        };
        if (env.BENCH_DEBUG) console.error(err);
      }
      if (e.peak_rss_bytes === null || e.peak_rss_bytes === undefined) e.peak_rss_bytes = memory(server.pid).hwm;
      entries.push(e);
      log(
        `${database}: ${sc.id} ${e.error ? `ERROR ${e.error}` : `${e.service} → ${e.target_met ? 'target met' : 'TARGET MISSED'}`} (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
      );
      await fake.setTurn({ tokens: 20 });
      await fake.reset();
    }
    await cleanups.pop()(); // server.stop
    if (pg) await cleanups.pop()(); // drop the database
  }
  if (otlp) log(`OTLP receiver: ${otlp.counts.spans} spans in ${otlp.counts.requests} requests`);
  await cleanup();

  const facts = machineFacts({ postgres: postgresVersion });
  console.log('\n' + table(entries) + '\n');
  console.log(
    `${facts.cpu}, ${facts.memory_gib} GiB, Node ${facts.node}${postgresVersion ? `, Postgres ${postgresVersion}` : ''}`,
  );
  log(`results: ${writeResults(ROOT, entries)}`);
  if (writeDocs) {
    const doc = updateDocs(
      ROOT,
      entries,
      facts,
      quick ? 'BENCH_QUICK' : fullRun ? 'full run' : `partial run: ${only.join(',')} on ${databases.join('+')}`,
    );
    if (doc) log(`table copied into ${doc}`);
  }
  if (profDir) log(`CPU profiles of the server: ${profDir} (summarise with node bench/profile-top.mjs <file>)`);
  if (requested.includes(CLUSTER)) runCluster();
  const errors = entries.filter((e) => e.error).length;
  const missed = entries.filter((e) => !e.error && !e.target_met).length;
  log(`${entries.length - errors - missed} met, ${missed} missed, ${errors} errors`);
  if (errors || (missed && env.BENCH_STRICT === '1')) process.exitCode = 1;
}

/** Scenario 8: bench/cluster.mjs in a child process (it prints its own table, bench/results/cluster.json). */
function runCluster() {
  log('8-cluster: node bench/cluster.mjs…');
  const r = spawnSync(process.execPath, [join(ROOT, 'bench/cluster.mjs')], {
    stdio: 'inherit',
    env: { ...env, BENCH_SKIP_BUILD: '1' },
  });
  if (r.status !== 0) process.exitCode = r.status || 1;
}

main().catch(async (err) => {
  console.error(err);
  await cleanup();
  process.exit(1);
});
