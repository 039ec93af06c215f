#!/usr/bin/env node
// `node bench/telemetry-overhead.mjs`: the server CPU a turn costs with tracing on vs off (and, with
// BENCH_ROOT=<checkout of the build before telemetry>, vs that build), measured side by side.
//
// The machine is shared and loaded, so runs one after another differ by more than what we look for.
// Here the servers run at the same time, each on its own database on the Postgres server, all driven
// by the same load (autocannon, sync turns on a 20-token fake model, like scenario 5) in the same
// windows: a burst of load changes them alike, and each round gives a paired difference.
//
//   BENCH_ROUNDS=5         measured rounds (default 5), each BENCH_SECONDS long (default 15)
//   BENCH_CLIENTS=8        connections per server (default 8)
//   BENCH_ROOT=<checkout>  add a server running that checkout's build (e.g. main before telemetry)
//   BENCH_ROOT_TRACED=1    run that build with tracing on (its own receiver): an earlier telemetry build
//                          against this one, both paired with this build's tracing-off server
//   BENCH_TRACED_ENV='[{"OTEL_TRACES_SAMPLER":"always_off"}]'  add tracing-on servers with these extra variables
//   BENCH_UNTRACED=1       leave out the plain tracing-on server (e.g. to compare only BENCH_ROOT and off)
//   BENCH_OFF_ROOT=<checkout>  the tracing-off server runs that build instead of this one (e.g. the
//                          commit that added telemetry, against BENCH_ROOT = its parent: what "off" costs)
// Needs `npm run build` first (apps/api/dist and dist-support). Docs: docs/performance.md.
import { join } from 'node:path';
import { cannon, errorCount } from './lib/load.mjs';
import { startOtlpSink } from './lib/otlp-sink.mjs';
import { cpuSeconds, createPgDatabase, ROOT, startFake, startServer } from './lib/processes.mjs';
import { BenchSetup, CHAT_TEXT_TOKENS } from './lib/setup.mjs';
import { round } from './lib/stats.mjs';

const env = process.env;
const rounds = Number(env.BENCH_ROUNDS || 5);
const seconds = Number(env.BENCH_SECONDS || 15);
const clients = Number(env.BENCH_CLIENTS || 8);
const log = (...a) => console.log(`[overhead ${new Date().toISOString().slice(11, 19)}]`, ...a);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const cleanups = [];
async function cleanup() {
  while (cleanups.length)
    await cleanups
      .pop()()
      .catch((e) => console.error('cleanup:', e.message));
}

async function main() {
  process.chdir(ROOT);
  const fake = await startFake();
  cleanups.push(() => fake.stop());
  await fake.setTurn({ tokens: CHAT_TEXT_TOKENS });
  // one receiver per traced server, so each one's spans are counted apart
  const traced = async (name, extra = {}) => {
    const sink = await startOtlpSink();
    cleanups.push(() => sink.stop());
    return { name, root: null, sink, env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, ...extra } };
  };
  const kinds = [
    ...(env.BENCH_ROOT
      ? [
          env.BENCH_ROOT_TRACED === '1'
            ? { ...(await traced('before on')), root: env.BENCH_ROOT }
            : { name: 'before', root: env.BENCH_ROOT, env: {} },
        ]
      : []),
    { name: 'off', root: env.BENCH_OFF_ROOT || null, env: {} },
    ...(env.BENCH_UNTRACED === '1' ? [] : [await traced('on')]),
    ...(await Promise.all(
      JSON.parse(env.BENCH_TRACED_ENV || '[]').map((extra) =>
        traced(
          `on ${Object.entries(extra)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`,
          extra,
        ),
      ),
    )),
  ];
  const servers = [];
  for (const k of kinds) {
    const pg = await createPgDatabase();
    cleanups.push(() => pg.drop());
    const server = await startServer({
      databaseUrl: pg.url,
      // this checkout's build unless the kind names another (startServer alone would fall back to BENCH_ROOT)
      root: k.root ?? ROOT,
      env: { ...k.env, MAX_RUNS_PER_USER: '100000', OTEL_BSP_MAX_QUEUE_SIZE: '8192' },
    });
    cleanups.push(() => server.stop());
    const setup = new BenchSetup(server, fake);
    await setup.login();
    const slugs = await setup.projects('plain', 'overhead', clients);
    const bodies = slugs.map((slug) => JSON.stringify({ message: 'Say something short.', project_slug: slug }));
    const headers = { ...setup.authHeader, 'content-type': 'application/json' };
    servers.push({ ...k, server, bodies, headers, cpu: [], turns: [], errors: 0 });
    log(`${k.name}: pid ${server.pid} ${k.root ? `(build of ${k.root})` : join(ROOT, 'apps/api/dist')}`);
  }
  const load = (duration) =>
    Promise.all(
      servers.map((s) =>
        cannon({
          url: s.server.url + '/agent/chat',
          method: 'POST',
          headers: s.headers,
          bodies: s.bodies,
          connections: clients,
          duration,
        }),
      ),
    );

  log('warm-up');
  await load(5);
  const spans0 = servers.map((s) => s.sink?.counts.spans ?? 0);
  for (let r = 1; r <= rounds; r++) {
    const cpu0 = servers.map((s) => cpuSeconds(s.server.pid));
    const results = await load(seconds);
    servers.forEach((s, i) => {
      const turns = results[i].latencies.length;
      s.turns.push(turns);
      s.errors += errorCount(results[i].result);
      s.cpu.push(((cpuSeconds(s.server.pid) - cpu0[i]) * 1000) / turns);
    });
    log(
      `round ${r}: ${servers.map((s) => `${s.name} ${round(s.cpu.at(-1), 2)} ms/turn (${s.turns.at(-1)} turns)`).join(' · ')}`,
    );
  }
  const off = servers.find((s) => s.name === 'off');
  const paired = (a, b) => median(a.cpu.map((x, i) => x - b.cpu[i]));
  // let the batch processors send what they hold before counting
  await new Promise((r) => setTimeout(r, 6000));
  const out = {
    rounds,
    seconds,
    clients,
    cpu_ms_per_turn: Object.fromEntries(servers.map((s) => [s.name, round(median(s.cpu), 2)])),
    errors: Object.fromEntries(servers.map((s) => [s.name, s.errors])),
    minus_off_ms_paired_median: Object.fromEntries(
      servers.filter((s) => s !== off).map((s) => [s.name, round(paired(s, off), 2)]),
    ),
    // the same as a share of the off server's CPU per turn in that round: load that slows every server
    // alike (this machine's CPU per turn moves 8 → 30 ms between rounds) cancels out of the ratio
    minus_off_percent_paired_median: Object.fromEntries(
      servers
        .filter((s) => s !== off)
        .map((s) => [s.name, round(median(s.cpu.map((x, i) => (100 * (x - off.cpu[i])) / off.cpu[i])), 1)]),
    ),
    spans_per_turn: Object.fromEntries(
      servers
        .map((s, i) => [s, i])
        .filter(([s]) => s.sink)
        .map(([s, i]) => [s.name, round((s.sink.counts.spans - spans0[i]) / s.turns.reduce((a, b) => a + b, 0), 1)]),
    ),
  };
  console.log(JSON.stringify(out, null, 2));
  await cleanup();
}

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => cleanup().finally(() => process.exit(130)));
main().catch(async (err) => {
  console.error(err);
  await cleanup();
  process.exit(1);
});
