// 4. 1,000 streams open at once on a slow provider (it waits `hold` before its first token, then
// streams 20 tokens 20 ms apart): the server's RSS per held stream, and that none is dropped (each
// ends with all its text, `done` state done, then `close`). Each stream has its own project, as 1,000
// users would. "Direct" is the same 1,000 requests held by the fake provider itself: the bare cost of
// a Node HTTP stream on this machine.
import { freshAgent, readStream, serviceDelta, serviceClose, openAiDelta, openAiDone } from '../lib/http.mjs';
import { memory } from '../lib/processes.mjs';
import { fakeText } from '../lib/setup.mjs';
import { kib, mib, ratio, round, sleep } from '../lib/stats.mjs';
import { check, entry } from './common.mjs';

export const id = '4-held-streams';
export const target = '≤ 64 KiB RSS per held stream, none dropped';
export const title = '1,000 concurrent streams held on a slow provider';

const TOKENS = 20;

/** Opens `urls.length` streams at once; samples `pid`'s RSS until all are held, then waits for all. */
async function hold(ctx, pid, open, count, holdMs) {
  const { fake } = ctx;
  await sleep(1000);
  const base = memory(pid).rss;
  await fake.reset();
  const t0 = Date.now();
  const streams = Array.from({ length: count }, (_, i) => open(i));
  let allOpenMs = null;
  let held = base;
  const deadline = t0 + holdMs - 500;
  while (Date.now() < deadline) {
    const st = await fake.stats();
    held = Math.max(held, memory(pid).rss);
    if (st.inflight >= count && allOpenMs === null) allOpenMs = Date.now() - t0;
    if (allOpenMs !== null && Date.now() - t0 > allOpenMs + 1500) break;
    await sleep(100);
  }
  const results = await Promise.all(streams);
  return { base, held, allOpenMs, results, maxInflight: (await fake.stats()).maxInflight };
}

export async function run(ctx) {
  const { setup, fake, server, quick } = ctx;
  const count = Number(process.env.BENCH_STREAMS || 1000);
  const holdMs = quick ? 12_000 : 20_000;
  const slugs = await setup.projects('plain', 'bench-hold', count);
  const expected = fakeText(TOKENS);
  const streamUrl = (slug) =>
    `${server.url}/agent/stream?message=${encodeURIComponent('Take your time.')}&project_slug=${slug}`;

  // warm the code paths with a few quick turns
  await fake.setTurn({ tokens: TOKENS });
  for (let i = 0; i < 20; i++) {
    const r = await readStream(streamUrl(slugs[i % slugs.length]), {
      headers: setup.authHeader,
      isContent: serviceDelta,
      isClose: serviceClose,
      keepEvents: false,
    });
    check(!r.error && r.contentText === expected, `warm-up stream failed: ${r.error ?? r.contentText.slice(0, 100)}`);
  }

  await fake.setTurn({ tokens: TOKENS, ttftMs: holdMs, tokenIntervalMs: 20 });
  const svc = await hold(
    ctx,
    server.pid,
    (i) =>
      readStream(streamUrl(slugs[i]), {
        headers: setup.authHeader,
        agent: freshAgent,
        isContent: serviceDelta,
        isClose: serviceClose,
        keepEvents: false,
      }),
    count,
    holdMs,
  );
  const ok = svc.results.filter(
    (r) => !r.error && r.status === 200 && r.closeAt !== null && r.done?.state === 'done' && r.contentText === expected,
  );
  const dropped = count - ok.length;
  const failures = {};
  for (const r of svc.results) {
    if (ok.includes(r)) continue;
    const why =
      r.error ??
      (r.status !== 200
        ? `HTTP ${r.status}`
        : r.closeAt === null
          ? 'no close'
          : r.done?.state !== 'done'
            ? `done.state ${r.done?.state}`
            : 'text differs');
    failures[why.slice(0, 120)] = (failures[why.slice(0, 120)] ?? 0) + 1;
  }

  // the same requests held by the fake provider alone
  const request = (await fake.stats()).recent.at(-1);
  await fake.setTurn({ tokens: TOKENS, ttftMs: Math.min(holdMs, 8000), tokenIntervalMs: 20 });
  const dir = await hold(
    ctx,
    fake.pid,
    () =>
      readStream(fake.url + request.path, {
        method: 'POST',
        body: request.body,
        agent: freshAgent,
        isContent: openAiDelta,
        isClose: openAiDone,
        keepEvents: false,
      }),
    count,
    Math.min(holdMs, 8000),
  );
  const directDropped = dir.results.filter((r) => r.error || r.status !== 200 || r.contentText !== expected).length;
  await fake.setTurn({ tokens: TOKENS });

  const perStream = (svc.held - svc.base) / count;
  const directPerStream = (dir.held - dir.base) / count;
  return entry(ctx, id, {
    title,
    peak_rss_bytes: svc.held,
    direct: `${kib(directPerStream)}/stream (bare Node server)`,
    service: `${kib(perStream)}/stream · RSS ${mib(svc.base)} → ${mib(svc.held)} · ${ok.length}/${count} completed`,
    overhead: `${kib(perStream - directPerStream)}/stream · ${dropped} dropped`,
    ratio: ratio(perStream, directPerStream),
    target,
    target_met: perStream <= 64 * 1024 && dropped === 0 && svc.allOpenMs !== null,
    figures: {
      streams: count,
      hold_ms: holdMs,
      all_open_after_ms: svc.allOpenMs,
      provider_max_inflight: svc.maxInflight,
      rss_before_bytes: svc.base,
      rss_held_bytes: svc.held,
      rss_per_stream_bytes: round(perStream, 0),
      completed: ok.length,
      dropped,
      failures,
      direct_rss_per_stream_bytes: round(directPerStream, 0),
      direct_dropped: directDropped,
    },
  });
}
