// 1. A sync chat turn (POST /agent/chat), one agent node, no tools, provider at 0 ms with 20 tokens:
// the platform's overhead per turn = the turn's latency minus the same provider request sent direct.
import { cannon, errorCount } from '../lib/load.mjs';
import { otherCpu, cpuSeconds } from '../lib/processes.mjs';
import { fakeText, CHAT_TEXT_TOKENS } from '../lib/setup.mjs';
import { ms, ratio, round, summary } from '../lib/stats.mjs';
import { check, entry } from './common.mjs';

export const id = '1-sync-turn';
export const target = 'overhead p50 ≤ 3 ms, p99 ≤ 15 ms';
export const title = 'sync chat turn, 1 agent node, no tools';

export async function run(ctx) {
  const { setup, fake, server, quick } = ctx;
  const turns = quick ? 100 : 1000;
  const warm = quick ? 30 : 200;
  const slug = await setup.project('plain', 'bench-sync');
  await fake.setTurn({ tokens: CHAT_TEXT_TOKENS });

  const body = JSON.stringify({ message: 'Say something short.', project_slug: slug });
  const headers = { ...setup.authHeader, 'content-type': 'application/json' };
  const first = await setup.api.post('/agent/chat', JSON.parse(body));
  check(first.status === 200, `POST /agent/chat → ${first.status}: ${JSON.stringify(first.body).slice(0, 400)}`);
  check(first.body.reply === fakeText(CHAT_TEXT_TOKENS), `unexpected reply: ${JSON.stringify(first.body.reply)}`);

  const url = server.url + '/agent/chat';
  await cannon({ url, method: 'POST', headers, body, connections: 1, amount: warm });
  await fake.reset();
  const other0 = otherCpu();
  const cpu0 = cpuSeconds(server.pid);
  const svc = await cannon({ url, method: 'POST', headers, body, connections: 1, amount: turns });
  const cpu1 = cpuSeconds(server.pid);
  const other1 = otherCpu();
  const stats = await fake.stats();
  check(
    errorCount(svc.result) === 0,
    `${errorCount(svc.result)} errors in ${turns} turns: ${JSON.stringify(svc.statuses)}`,
  );

  // The exact request the service sent the provider, replayed straight to it.
  const sent = stats.recent.at(-1);
  const directUrl = fake.url + sent.path;
  const directBody = JSON.stringify(sent.body);
  await cannon({
    url: directUrl,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: directBody,
    connections: 1,
    amount: warm,
  });
  const direct = await cannon({
    url: directUrl,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: directBody,
    connections: 1,
    amount: turns,
  });

  const s = summary(svc.latencies);
  const d = summary(direct.latencies);
  const overhead50 = round(s.p50 - d.p50);
  const overhead99 = round(s.p99 - d.p99);
  const cpuPerTurn = round(((cpu1 - cpu0) * 1000) / turns);
  return entry(ctx, id, {
    title,
    median_ms: s.p50,
    p99_ms: s.p99,
    throughput_per_s: round(turns / (svc.result.duration || 1), 1),
    direct: `p50 ${ms(d.p50)} · p99 ${ms(d.p99)}`,
    service: `p50 ${ms(s.p50)} · p99 ${ms(s.p99)}`,
    overhead: `p50 +${ms(overhead50)} · p99 +${ms(overhead99)}`,
    ratio: ratio(s.p50, d.p50),
    target,
    target_met: overhead50 <= 3 && overhead99 <= 15,
    figures: {
      turns,
      service_ms: s,
      direct_ms: d,
      overhead_p50_ms: overhead50,
      overhead_p99_ms: overhead99,
      server_cpu_ms_per_turn: cpuPerTurn,
      postgres_cpu_ms_per_turn:
        ctx.database === 'postgres' ? round(((other1.postgres - other0.postgres) * 1000) / turns, 2) : null,
      machine_cpu_ms_per_turn: round(((other1.machineBusy - other0.machineBusy) * 1000) / turns, 2),
      provider_calls_per_turn: round(stats.count / turns, 2),
      provider_request_bytes: directBody.length,
    },
  });
}
