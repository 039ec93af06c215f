/**
 * A small OTLP/HTTP trace receiver on 127.0.0.1 for API tests: accepts `POST /v1/traces` in both
 * encodings — protobuf (`application/x-protobuf`, the default, `@opentelemetry/exporter-trace-otlp-proto`)
 * and JSON (`application/json`, `@opentelemetry/exporter-trace-otlp-http`) — and keeps every span,
 * flattened, with its resource's and its own attributes decoded to plain values.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  status: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  scope: string;
}

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
};

function decode(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(decode);
  return undefined;
}

function attributes(list: Array<{ key: string; value: AnyValue }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, decode(a.value)]));
}

/** Ids arrive as hex (the exporter's JSON encoding) or base64 (the protobuf-JSON mapping): always hex here. */
function hexId(id: string | undefined): string {
  if (!id) return '';
  return /^[0-9a-f]+$/i.test(id) && (id.length === 16 || id.length === 32)
    ? id.toLowerCase()
    : Buffer.from(id, 'base64').toString('hex');
}

/**
 * The protobuf wire format, read as far as OTLP's trace request needs (opentelemetry-proto
 * `collector/trace/v1`, `trace/v1`, `common/v1`): a message is its fields by number, each a varint
 * (bigint) or a length-delimited / fixed-width value (Buffer).
 */
type Raw = bigint | Buffer;
function message(buf: Buffer): Map<number, Raw[]> {
  const fields = new Map<number, Raw[]>();
  let pos = 0;
  const varint = () => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[pos++];
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  };
  const take = (n: number) => buf.subarray(pos, (pos += n));
  while (pos < buf.length) {
    const key = Number(varint());
    const wire = key & 7;
    const value =
      wire === 0 ? varint() : wire === 1 ? take(8) : wire === 5 ? take(4) : wire === 2 ? take(Number(varint())) : null;
    if (value === null) throw new Error(`protobuf: wire type ${wire} not expected in OTLP traces`);
    fields.set(key >>> 3, [...(fields.get(key >>> 3) ?? []), value]);
  }
  return fields;
}
const first = (m: Map<number, Raw[]>, n: number) => m.get(n)?.[0];
const bytesOf = (m: Map<number, Raw[]>, n: number) => (first(m, n) as Buffer | undefined) ?? Buffer.alloc(0);

function protoValue(b: Buffer): unknown {
  const v = message(b);
  if (v.has(1)) return bytesOf(v, 1).toString('utf8');
  if (v.has(2)) return first(v, 2) === 1n;
  if (v.has(3)) return Number(BigInt.asIntN(64, first(v, 3) as bigint));
  if (v.has(4)) return bytesOf(v, 4).readDoubleLE(0);
  if (v.has(5)) return (message(bytesOf(v, 5)).get(1) ?? []).map((x) => protoValue(x as Buffer));
  return undefined;
}

function protoAttributes(list: Raw[] | undefined): Record<string, unknown> {
  return Object.fromEntries(
    (list ?? []).map((b) => {
      const kv = message(b as Buffer);
      return [bytesOf(kv, 1).toString('utf8'), kv.has(2) ? protoValue(bytesOf(kv, 2)) : undefined];
    }),
  );
}

/** An ExportTraceServiceRequest in protobuf, as the spans it carries. */
function protoSpans(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of message(body).get(1) ?? []) {
    const resourceSpans = message(rs as Buffer);
    const resource = protoAttributes(message(bytesOf(resourceSpans, 1)).get(1));
    for (const ss of resourceSpans.get(2) ?? []) {
      const scopeSpans = message(ss as Buffer);
      const scope = bytesOf(message(bytesOf(scopeSpans, 1)), 1).toString('utf8');
      for (const sp of scopeSpans.get(2) ?? []) {
        const span = message(sp as Buffer);
        const status = message(bytesOf(span, 15));
        out.push({
          traceId: bytesOf(span, 1).toString('hex'),
          spanId: bytesOf(span, 2).toString('hex'),
          parentSpanId: bytesOf(span, 4).toString('hex'),
          name: bytesOf(span, 5).toString('utf8'),
          kind: Number(first(span, 6) ?? 0n),
          status: {
            ...(status.has(3) ? { code: Number(first(status, 3)) } : {}),
            ...(status.has(2) ? { message: bytesOf(status, 2).toString('utf8') } : {}),
          },
          attributes: protoAttributes(span.get(9)),
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly requests: Array<{ path: string; contentType: string }> = [];
  endpoint = '';

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        receiver.requests.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '' });
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        const body = Buffer.concat(chunks);
        if (/^application\/x-protobuf/.test(req.headers['content-type'] ?? '')) {
          receiver.spans.push(...protoSpans(body));
          // an empty ExportTraceServiceResponse
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
          return;
        }
        receiver.take(JSON.parse(body.toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return receiver;
  }

  private take(body: any) {
    for (const rs of body.resourceSpans ?? []) {
      const resource = attributes(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            traceId: hexId(s.traceId),
            spanId: hexId(s.spanId),
            parentSpanId: hexId(s.parentSpanId),
            name: s.name,
            kind: s.kind,
            status: s.status ?? {},
            attributes: attributes(s.attributes),
            resource,
            scope: ss.scope?.name ?? '',
          });
        }
      }
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
