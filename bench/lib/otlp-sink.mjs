// BENCH_OTLP=1: a local OTLP/HTTP trace receiver for the server under test (its
// OTEL_EXPORTER_OTLP_ENDPOINT), so a run measures the cost of tracing on, export included. It reads
// each request (protobuf, the server's default, or JSON) and counts the spans, nothing more.
import { createServer } from 'node:http';

/** The length-delimited fields numbered `no` of a protobuf message (the wire format, nothing more). */
function* fieldsOf(buf, no) {
  let pos = 0;
  const varint = () => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const b = buf[pos++];
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
  };
  while (pos < buf.length) {
    const key = varint();
    const wire = key % 8;
    if (wire === 0) varint();
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const n = varint();
      if (Math.floor(key / 8) === no) yield buf.subarray(pos, pos + n);
      pos += n;
    } else throw new Error(`protobuf wire type ${wire}`);
  }
}

/** ExportTraceServiceRequest → resource_spans (1) → scope_spans (2) → spans (2). */
function protobufSpans(body) {
  let n = 0;
  for (const rs of fieldsOf(body, 1)) for (const ss of fieldsOf(rs, 2)) for (const _ of fieldsOf(ss, 2)) n++;
  return n;
}

export async function startOtlpSink() {
  const counts = { requests: 0, spans: 0, bytes: 0 };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      counts.requests++;
      counts.bytes += body.length;
      if (/protobuf/.test(req.headers['content-type'] ?? '')) {
        counts.spans += protobufSpans(body);
        return res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
      for (const rs of JSON.parse(body.toString('utf8')).resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? []) counts.spans += ss.spans?.length ?? 0;
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
