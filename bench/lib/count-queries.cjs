// Diagnostic preload (-r) for the server: counts the SQL statements sent through `pg` (Postgres
// server) by their text, and prints the counts to stderr as JSON when the process gets SIGWINCH (not one of Nest's shutdown signals; then
// resets them). Used to see how many round trips one turn costs: node -r bench/lib/count-queries.cjs …
if (globalThis.__benchQueryCounts) return;
globalThis.__benchQueryCounts = true;
const { Client } = require('pg');
const counts = new Map();
const query = Client.prototype.query;
Client.prototype.query = function (config, ...rest) {
  const text = typeof config === 'string' ? config : config?.text;
  if (text) {
    const key = text
      .replace(/\s+/g, ' ')
      .replace(/\$\d+(, )?/g, '?')
      .slice(0, Number(process.env.BENCH_QUERY_TEXT ?? 160));
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return query.call(this, config, ...rest);
};
process.on('SIGWINCH', () => {
  process.stderr.write(`BENCH_QUERY_COUNTS ${JSON.stringify([...counts].sort((a, b) => b[1] - a[1]))}\n`);
  counts.clear();
});
// With BENCH_QUERY_COUNTS_FILE set, the running totals are also written there every second (the bench
// sets it with BENCH_COUNT_QUERIES=1, so the counts of a whole run survive the server's shutdown).
if (process.env.BENCH_QUERY_COUNTS_FILE) {
  const { writeFileSync } = require('node:fs');
  setInterval(
    () =>
      writeFileSync(
        process.env.BENCH_QUERY_COUNTS_FILE,
        JSON.stringify(
          [...counts].sort((a, b) => b[1] - a[1]),
          null,
          1,
        ),
      ),
    1000,
  ).unref();
}
