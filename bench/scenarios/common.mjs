// Shared by the chat scenarios: the entry format of bench/results/latest.json and small checks.
import { round } from '../lib/stats.mjs';

/**
 * One result row. `figures` holds every number measured; the top-level fields are what the table
 * and the issue ask for: median and p99 (ms), throughput (per s), peak RSS (bytes) where they apply.
 */
export function entry(ctx, scenario, fields) {
  return {
    scenario,
    database: ctx.database,
    title: fields.title,
    median_ms: fields.median_ms ?? null,
    p99_ms: fields.p99_ms ?? null,
    throughput_per_s: fields.throughput_per_s ?? null,
    peak_rss_bytes: fields.peak_rss_bytes ?? null,
    direct: fields.direct ?? '—',
    service: fields.service ?? '—',
    overhead: fields.overhead ?? '—',
    ratio: fields.ratio ?? null,
    target: fields.target,
    target_met: Boolean(fields.target_met),
    figures: fields.figures ?? {},
    ...(fields.rows ? { rows: fields.rows } : {}),
    ...(fields.notes ? { notes: fields.notes } : {}),
  };
}

export function check(cond, message) {
  if (!cond) throw new Error(message);
}

/** Nanoseconds between two process.hrtime.bigint() readings (strings or bigints), in ms. */
export function nsToMs(later, earlier) {
  if (later === null || earlier === null || later === undefined || earlier === undefined) return NaN;
  return Number(BigInt(later) - BigInt(earlier)) / 1e6;
}

export function n(quick, full, quickValue) {
  return quick ? quickValue : full;
}

export { round };
