// BENCH_OTLP=1: a local OTLP/HTTP trace receiver for the server under test (its
// OTEL_EXPORTER_OTLP_ENDPOINT), so a run measures the cost of tracing on, export included. It reads
// each JSON request and counts the spans, nothing more.
import { createServer } from 'node:http';

export async function startOtlpSink() {
  const counts = { requests: 0, spans: 0, bytes: 0 };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      counts.requests++;
      counts.bytes += body.length;
      try {
        for (const rs of JSON.parse(body.toString('utf8')).resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? []) counts.spans += ss.spans?.length ?? 0;
      } catch {
        // not JSON (a protobuf exporter): counted as a request only
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${server.address().port}`,
    counts,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
