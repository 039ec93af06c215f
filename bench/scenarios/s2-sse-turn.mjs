// 2. The same turn over SSE (GET /agent/stream): time to the first `content` event and to `close`,
// against the same provider request sent direct. "After the provider's first token" is measured on the
// machine's monotonic clock, shared by every process: the fake provider notes when it wrote its first
// token, the client when the first `content` event arrived.
import { readStream, serviceDelta, serviceClose, openAiDelta, openAiDone } from '../lib/http.mjs';
import { cpuSeconds } from '../lib/processes.mjs';
import { fakeText, CHAT_TEXT_TOKENS } from '../lib/setup.mjs';
import { ms, ratio, round, summary } from '../lib/stats.mjs';
import { check, entry, nsToMs } from './common.mjs';

export const id = '2-sse-turn';
export const target = 'first content ≤ 2 ms after the provider’s first token (p50)';
export const title = 'the same turn over SSE';

export async function run(ctx) {
  const { setup, fake, server, quick } = ctx;
  const turns = quick ? 60 : 400;
  const warm = quick ? 20 : 100;
  const slug = await setup.project('plain', 'bench-sse');
  await fake.setTurn({ tokens: CHAT_TEXT_TOKENS });
  const expected = fakeText(CHAT_TEXT_TOKENS);
  const url = `${server.url}/agent/stream?message=${encodeURIComponent('Say something short.')}&project_slug=${slug}`;

  const svc = { first: [], close: [], relay: [] };
  let cpu0 = 0;
  let lastRequest = null;
  for (let i = 0; i < warm + turns; i++) {
    if (i === warm) cpu0 = cpuSeconds(server.pid);
    const r = await readStream(url, { headers: setup.authHeader, isContent: serviceDelta, isClose: serviceClose });
    check(!r.error && r.status === 200, `GET /agent/stream: ${r.error ?? r.status}`);
    check(r.contentText === expected, `streamed text differs: ${JSON.stringify(r.contentText.slice(0, 200))}`);
    check(
      r.closeAt !== null && r.events.at(-1)?.name === 'close',
      `no close event last (${r.events.map((e) => e.name).join(',')})`,
    );
    check(r.done?.state === 'done', `done.state = ${r.done?.state}`);
    const stats = await fake.stats();
    if (i < warm) continue;
    svc.first.push(r.firstContentAt);
    svc.close.push(r.closeAt);
    svc.relay.push(nsToMs(r.firstContentNs, stats.timings.at(-1).firstTokenNs));
    lastRequest = stats.recent.at(-1);
  }
  const cpu1 = cpuSeconds(server.pid);

  const directUrl = fake.url + lastRequest.path;
  const dir = { first: [], close: [], relay: [] };
  for (let i = 0; i < warm + turns; i++) {
    const r = await readStream(directUrl, {
      method: 'POST',
      body: lastRequest.body,
      isContent: openAiDelta,
      isClose: openAiDone,
    });
    check(!r.error && r.status === 200 && r.contentText === expected, `direct request failed: ${r.error ?? r.status}`);
    const stats = await fake.stats();
    if (i < warm) continue;
    dir.first.push(r.firstContentAt);
    dir.close.push(r.endAt);
    dir.relay.push(nsToMs(r.firstContentNs, stats.timings.at(-1).firstTokenNs));
  }

  const s = { first: summary(svc.first), close: summary(svc.close), relay: summary(svc.relay) };
  const d = { first: summary(dir.first), close: summary(dir.close), relay: summary(dir.relay) };
  const firstOverhead = round(s.first.p50 - d.first.p50);
  const closeOverhead = round(s.close.p50 - d.close.p50);
  return entry(ctx, id, {
    title,
    median_ms: s.first.p50,
    p99_ms: s.first.p99,
    direct: `first ${ms(d.first.p50)} · end ${ms(d.close.p50)} · token→client ${ms(d.relay.p50)}`,
    service: `first ${ms(s.first.p50)} · close ${ms(s.close.p50)} · token→client ${ms(s.relay.p50)}`,
    overhead: `first +${ms(firstOverhead)} · close +${ms(closeOverhead)} · after 1st token ${ms(s.relay.p50)} (p99 ${ms(s.relay.p99)})`,
    ratio: ratio(s.close.p50, d.close.p50),
    target,
    target_met: s.relay.p50 <= 2,
    figures: {
      turns,
      service_first_content_ms: s.first,
      service_close_ms: s.close,
      service_after_first_token_ms: s.relay,
      direct_first_content_ms: d.first,
      direct_end_ms: d.close,
      direct_after_first_token_ms: d.relay,
      overhead_first_content_p50_ms: firstOverhead,
      overhead_first_content_p99_ms: round(s.first.p99 - d.first.p99),
      overhead_close_p50_ms: closeOverhead,
      overhead_close_p99_ms: round(s.close.p99 - d.close.p99),
      server_cpu_ms_per_turn: round(((cpu1 - cpu0) * 1000) / turns),
    },
  });
}
