// 5. Sustained chat: 50 clients (autocannon connections), each on its own project, sending sync turns
// back to back for 30 s against a 0 ms provider: throughput, p99, errors and server CPU per turn.
// "Direct" is the same provider request at the same concurrency straight to the fake provider.
import { cannon, errorCount } from '../lib/load.mjs';
import { otherCpu, cpuSeconds, memory } from '../lib/processes.mjs';
import { CHAT_TEXT_TOKENS } from '../lib/setup.mjs';
import { ms, ratio, round, sleep, summary } from '../lib/stats.mjs';
import { check, entry } from './common.mjs';

export const id = '5-sustained';
const WARMUP_DRAIN_MS = 5000;
export const target = '≥ 500 turns/s, 0 errors, ≤ 4 ms CPU per turn';
export const title = 'sustained chat, 50 concurrent clients';

/** what the failed requests were: HTTP statuses other than 2xx, socket errors, timeouts */
function errorKinds({ result, statuses }) {
  const kinds = Object.entries(statuses)
    .filter(([code]) => Number(code) >= 300)
    .map(([code, n]) => `${n}× ${code}`);
  if (result.errors) kinds.push(`${result.errors} socket errors`);
  if (result.timeouts) kinds.push(`${result.timeouts} timeouts`);
  return kinds.join(', ');
}

export async function run(ctx) {
  const { setup, fake, server, quick } = ctx;
  const clients = 50;
  const duration = quick ? 6 : 30;
  const slugs = await setup.projects('plain', 'bench-load', clients);
  await fake.setTurn({ tokens: CHAT_TEXT_TOKENS });
  const bodies = slugs.map((slug) => JSON.stringify({ message: 'Say something short.', project_slug: slug }));
  const headers = { ...setup.authHeader, 'content-type': 'application/json' };
  const url = server.url + '/agent/chat';

  await cannon({ url, method: 'POST', headers, bodies, connections: clients, duration: quick ? 2 : 5 });
  // autocannon stops at the deadline without waiting for the requests in flight: their turns still run
  // on the server, and the next message on such a project would be refused (409, one turn per project)
  await sleep(WARMUP_DRAIN_MS);
  await fake.reset();
  const other0 = otherCpu();
  const cpu0 = cpuSeconds(server.pid);
  const svc = await cannon({ url, method: 'POST', headers, bodies, connections: clients, duration });
  const cpu1 = cpuSeconds(server.pid);
  const other1 = otherCpu();
  const mem = memory(server.pid);
  const stats = await fake.stats();
  const turns = svc.latencies.length;
  const errors = errorCount(svc.result);
  check(turns > 0, `no turn completed: ${JSON.stringify(svc.statuses)}`);

  const sent = stats.recent.at(-1);
  const direct = await cannon({
    url: fake.url + sent.path,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sent.body),
    connections: clients,
    duration: quick ? 3 : 10,
  });

  const s = summary(svc.latencies);
  const d = summary(direct.latencies);
  const rate = round(turns / svc.result.duration, 1);
  const directRate = round(direct.latencies.length / direct.result.duration, 1);
  const cpuPerTurn = round(((cpu1 - cpu0) * 1000) / turns, 2);
  return entry(ctx, id, {
    title,
    median_ms: s.p50,
    p99_ms: s.p99,
    throughput_per_s: rate,
    peak_rss_bytes: mem.hwm,
    direct: `${directRate}/s · p99 ${ms(d.p99)}`,
    service: `${rate} turns/s · p99 ${ms(s.p99)} · ${errors} errors${errors ? ` (${errorKinds(svc)})` : ''} · CPU ${ms(cpuPerTurn)}/turn`,
    overhead: `p99 +${ms(round(s.p99 - d.p99))}`,
    ratio: ratio(directRate, rate),
    target,
    target_met: rate >= 500 && errors === 0 && cpuPerTurn <= 4,
    figures: {
      clients,
      duration_s: duration,
      turns,
      errors,
      statuses: svc.statuses,
      turns_per_s: rate,
      latency_ms: s,
      server_cpu_ms_per_turn: cpuPerTurn,
      postgres_cpu_ms_per_turn:
        ctx.database === 'postgres' ? round(((other1.postgres - other0.postgres) * 1000) / turns, 2) : null,
      machine_cpu_ms_per_turn: round(((other1.machineBusy - other0.machineBusy) * 1000) / turns, 2),
      server_cpu_utilisation: round((cpu1 - cpu0) / svc.result.duration, 2),
      provider_calls: stats.count,
      direct_per_s: directRate,
      direct_latency_ms: d,
      rss_bytes: mem.rss,
    },
  });
}
