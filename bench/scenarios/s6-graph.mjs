// 6. Graph GET/PUT at 100, 500 and 2,000 nodes (/studio/api/workflows/{id}/graph): the cost per save
// and load, and how it grows. "Linear" = the log-log slope of p50 time against node count from 500 to
// 2,000 stays ≤ 1.15 (1 = proportional; fixed per-request costs make it lower).
import { timedJson } from '../lib/http.mjs';
import { cpuSeconds } from '../lib/processes.mjs';
import { bigGraph } from '../lib/setup.mjs';
import { ms, round, summary } from '../lib/stats.mjs';
import { check, entry } from './common.mjs';

export const id = '6-graph';
export const target = 'linear growth (slope ≤ 1.15), 2,000 nodes saved ≤ 250 ms';
export const title = 'graph GET/PUT at 100 / 500 / 2,000 nodes';
export const SIZES = [100, 500, 2000];

export async function run(ctx) {
  const { setup, server, quick } = ctx;
  const reps = { 100: quick ? 10 : 40, 500: quick ? 6 : 20, 2000: quick ? 4 : 10 };
  const pdlc = await setup.systemPack();
  const sizes = {};
  for (const n of SIZES) {
    const graph = bigGraph(pdlc, n);
    const pack = await setup.pack(`bench-graph-${n}`, () => graph);
    check(pack.nodes === n, `saved ${pack.nodes} nodes, expected ${n}`);
    const url = `${server.url}/studio/api/workflows/${pack.id}/graph`;
    const body = JSON.stringify(graph);
    const put = [];
    const get = [];
    const cpu0 = cpuSeconds(server.pid);
    for (let i = 0; i < reps[n] + 2; i++) {
      const r = await timedJson(url, { method: 'PUT', headers: setup.authHeader, body });
      check(
        r.status === 200 && r.body.nodes?.length === n,
        `PUT graph (${n}) → ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`,
      );
      if (i >= 2) put.push(r.ms);
    }
    const cpu1 = cpuSeconds(server.pid);
    for (let i = 0; i < reps[n] + 2; i++) {
      const r = await timedJson(url, { headers: setup.authHeader });
      check(r.status === 200 && r.body.nodes?.length === n, `GET graph (${n}) → ${r.status}`);
      if (i >= 2) get.push(r.ms);
    }
    sizes[n] = {
      body_bytes: body.length,
      edges: graph.edges.length,
      put_ms: summary(put),
      get_ms: summary(get),
      put_server_cpu_ms: round(((cpu1 - cpu0) * 1000) / (reps[n] + 2), 1),
    };
  }
  const slope = (op) => round(Math.log(sizes[2000][op].p50 / sizes[500][op].p50) / Math.log(4), 2);
  const putSlope = slope('put_ms');
  const getSlope = slope('get_ms');
  const put2000 = sizes[2000].put_ms.p50;
  const rows = SIZES.map((n) => ({
    label: `${n} nodes`,
    service: `PUT p50 ${ms(sizes[n].put_ms.p50)} (p99 ${ms(sizes[n].put_ms.p99)}) · GET p50 ${ms(sizes[n].get_ms.p50)}`,
    overhead: `${round((sizes[n].put_ms.p50 * 1000) / n, 0)} µs/node saved · ${round((sizes[n].get_ms.p50 * 1000) / n, 0)} µs/node loaded`,
  }));
  return entry(ctx, id, {
    title,
    median_ms: put2000,
    p99_ms: sizes[2000].put_ms.p99,
    service: `PUT 2,000 p50 ${ms(put2000)} · GET 2,000 p50 ${ms(sizes[2000].get_ms.p50)}`,
    overhead: `slope 500→2,000: PUT ${putSlope}, GET ${getSlope}`,
    target,
    target_met: put2000 <= 250 && putSlope <= 1.15 && getSlope <= 1.15,
    rows,
    figures: { sizes, put_slope_500_2000: putSlope, get_slope_500_2000: getSlope },
  });
}
