// 3. A turn with 3 tool calls (write_file, read_file, write_file) then a 20-token answer, over SSE:
// the overhead of one ReAct iteration beyond the tool's own work. Compared with a turn of the same
// agent that answers at once, and with the same 4 (or 1) provider requests sent direct:
//   per iteration = ((tools turn − its direct requests − the tools' own work) − (plain turn − direct)) / 3
// where a tool's own work is the time from its `tool_call` event to its `tool_result` event.
import { readStream, serviceDelta, serviceClose, openAiDelta, openAiDone } from '../lib/http.mjs';
import { fakeText, CHAT_TEXT_TOKENS } from '../lib/setup.mjs';
import { ms, percentile, ratio, round, summary } from '../lib/stats.mjs';
import { check, entry } from './common.mjs';

export const id = '3-tool-turn';
export const target = '≤ 1 ms per iteration beyond the tool’s own work';
export const title = 'turn with 3 tool calls (read_file/write_file)';

const CONTENT = 'x'.repeat(2000) + '\n';
const TOOL_TURNS = [
  { tool_calls: [{ name: 'write_file', arguments: { path: 'bench/notes.md', content: CONTENT } }] },
  { tool_calls: [{ name: 'read_file', arguments: { path: 'bench/notes.md' } }] },
  { tool_calls: [{ name: 'write_file', arguments: { path: 'bench/summary.md', content: CONTENT } }] },
  { tokens: CHAT_TEXT_TOKENS },
];
const PLAIN_TURNS = [{ tokens: CHAT_TEXT_TOKENS }];

async function serviceTurns(ctx, url, script, count, warm) {
  const { fake } = ctx;
  const expected = fakeText(CHAT_TEXT_TOKENS);
  const out = { close: [], toolWork: [], requests: null };
  for (let i = 0; i < warm + count; i++) {
    await fake.reset();
    await fake.enqueue(...script);
    const r = await readStream(url, { headers: ctx.setup.authHeader, isContent: serviceDelta, isClose: serviceClose });
    check(!r.error && r.status === 200, `GET /agent/stream: ${r.error ?? r.status}`);
    check(r.contentText === expected, `streamed text differs: ${JSON.stringify(r.contentText.slice(0, 200))}`);
    check(r.done?.state === 'done', `done.state = ${r.done?.state}`);
    const results = r.events.filter((e) => e.name === 'tool_result').map((e) => JSON.parse(e.data));
    check(
      results.length === script.length - 1 && results.every((x) => x.ok),
      `tool results: ${JSON.stringify(results).slice(0, 400)}`,
    );
    const stats = await fake.stats();
    check(stats.count === script.length, `provider calls ${stats.count}, expected ${script.length}`);
    if (i < warm) continue;
    const calls = new Map();
    let work = 0;
    for (const e of r.events) {
      if (e.name === 'tool_call') calls.set(JSON.parse(e.data).call_id, e.t);
      if (e.name === 'tool_result') work += e.t - calls.get(JSON.parse(e.data).call_id);
    }
    out.close.push(r.closeAt);
    out.toolWork.push(work);
    out.requests = stats.recent.slice(-script.length);
  }
  return out;
}

async function directTurns(ctx, requests, script, count, warm) {
  const { fake } = ctx;
  const totals = [];
  for (let i = 0; i < warm + count; i++) {
    await fake.reset();
    await fake.enqueue(...script);
    let total = 0;
    for (const req of requests) {
      const r = await readStream(fake.url + req.path, {
        method: 'POST',
        body: req.body,
        isContent: openAiDelta,
        isClose: openAiDone,
      });
      check(!r.error && r.status === 200, `direct request failed: ${r.error ?? r.status}`);
      total += r.endAt;
    }
    if (i >= warm) totals.push(total);
  }
  return totals;
}

export async function run(ctx) {
  const { setup, server, quick } = ctx;
  const turns = quick ? 30 : 200;
  const warm = quick ? 10 : 40;
  const slug = await setup.project('tools', 'bench-tools');
  const url = `${server.url}/agent/stream?message=${encodeURIComponent('Write the notes, read them back, then summarise.')}&project_slug=${slug}`;

  const tools = await serviceTurns(ctx, url, TOOL_TURNS, turns, warm);
  const plain = await serviceTurns(ctx, url, PLAIN_TURNS, turns, warm);
  const toolsDirect = await directTurns(ctx, tools.requests, TOOL_TURNS, turns, warm);
  const plainDirect = await directTurns(ctx, plain.requests, PLAIN_TURNS, turns, warm);

  const p50 = (xs) => percentile(xs, 50);
  const beyondTools = tools.close.map((t, i) => t - tools.toolWork[i]);
  const toolsOverhead = p50(beyondTools) - p50(toolsDirect);
  const plainOverhead = p50(plain.close) - p50(plainDirect);
  const perIteration = round((toolsOverhead - plainOverhead) / 3);
  const s = summary(tools.close);
  return entry(ctx, id, {
    title,
    median_ms: s.p50,
    p99_ms: s.p99,
    direct: `4 calls ${ms(p50(toolsDirect))} (1 call ${ms(p50(plainDirect))})`,
    service: `turn ${ms(s.p50)}, tools' work ${ms(p50(tools.toolWork))} (plain turn ${ms(p50(plain.close))})`,
    overhead: `+${ms(perIteration)} per iteration`,
    ratio: ratio(s.p50, p50(toolsDirect)),
    target,
    target_met: perIteration <= 1,
    figures: {
      turns,
      tools_turn_close_ms: s,
      tools_own_work_ms: summary(tools.toolWork),
      tools_turn_beyond_tools_ms: summary(beyondTools),
      tools_direct_4_calls_ms: summary(toolsDirect),
      plain_turn_close_ms: summary(plain.close),
      plain_direct_ms: summary(plainDirect),
      tools_turn_overhead_p50_ms: round(toolsOverhead),
      plain_turn_overhead_p50_ms: round(plainOverhead),
      overhead_per_iteration_ms: perIteration,
    },
  });
}
