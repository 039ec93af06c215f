// Small numeric helpers for the benchmark: percentiles over raw samples (autocannon's own histogram
// rounds to whole milliseconds, too coarse for a 3 ms budget, so every scenario keeps raw samples).

/** Nearest-rank percentile of raw samples (p in 0..100); NaN when there are none. */
export function percentile(samples, p) {
  if (!samples.length) return NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summary(samples) {
  return {
    n: samples.length,
    p50: round(percentile(samples, 50)),
    p90: round(percentile(samples, 90)),
    p99: round(percentile(samples, 99)),
    max: round(samples.length ? Math.max(...samples) : NaN),
    mean: round(samples.length ? samples.reduce((a, b) => a + b, 0) / samples.length : NaN),
  };
}

export function round(x, digits = 3) {
  if (!Number.isFinite(x)) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** "1.23 ms" with a precision that suits the magnitude. */
export function ms(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  const a = Math.abs(x);
  return `${a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : x.toFixed(2)} ms`;
}

export function kib(bytes) {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '—';
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

export function mib(bytes) {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '—';
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function ratio(a, b) {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return round(a / b, 2);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
