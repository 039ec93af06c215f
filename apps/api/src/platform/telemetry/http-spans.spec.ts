import type { AddressInfo } from 'node:net';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import express from 'express';
import { request as httpRequest, type Server } from 'node:http';
import { httpSpans } from './http-spans';

describe('HTTP server spans', () => {
  const exporter = new InMemorySpanExporter();
  let server: Server;
  let base: string;

  beforeAll(async () => {
    // what tracing-sdk.ts registers: AsyncLocalStorage context, W3C trace context propagation
    new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();
    const app = express();
    app.use(httpSpans('test'));
    // the body parser the app uses (platform/http/body.ts): the body's events come from the socket
    app.use(express.json());
    const tracer = trace.getTracer('handler');
    app.post('/agent/chat', async (req, res) => {
      await new Promise((r) => setTimeout(r, 5));
      // what a statement or a turn would open: a child of the request's span
      tracer.startSpan('inner').end();
      res.json({ echo: (req.body as { message?: string }).message });
    });
    app.get('/agent/stream', (_req, res) => {
      res.status(503).json({});
    });
    app.get('/health', (_req, res) => {
      tracer.startSpan('probe work').end();
      res.json({ status: 'ok' });
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    trace.disable();
    context.disable();
    propagation.disable();
  });

  beforeEach(() => exporter.reset());

  const finished = async (n: number) => {
    for (let i = 0; i < 100 && exporter.getFinishedSpans().length < n; i++) await new Promise((r) => setTimeout(r, 10));
    return exporter.getFinishedSpans();
  };

  test("a request's span: the caller's traceparent its parent, named after the route, the work inside it under it", async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    // the body arrives after the headers, in a packet of its own (as a slow or large upload does)
    const reply = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        `${base}/agent/chat?message=secret+plan`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-b7ad6b7169203331-01` },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += String(c)));
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
      req.flushHeaders();
      setTimeout(() => req.end(JSON.stringify({ message: 'hello' })), 30);
    });
    expect(JSON.parse(reply)).toEqual({ echo: 'hello' });
    const spans = await finished(2);
    const request = spans.find((s) => s.kind === SpanKind.SERVER)!;
    const inner = spans.find((s) => s.name === 'inner')!;
    expect(request.name).toBe('POST /agent/chat');
    expect(request.spanContext().traceId).toBe(traceId);
    expect(request.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(inner.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(request.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/agent/chat',
      'url.path': '/agent/chat',
      'http.response.status_code': 200,
    });
    expect(request.status.code).toBe(SpanStatusCode.UNSET);
    // the query string (a streamed message travels in it) is nowhere in the span
    expect(JSON.stringify(request.attributes)).not.toMatch(/secret|message=/);
  });

  test('a 5xx answer marks the span as an error', async () => {
    await fetch(`${base}/agent/stream?message=x`);
    const [span] = await finished(1);
    expect(span.name).toBe('GET /agent/stream');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('503');
  });

  test('probes and scrapes make no trace', async () => {
    await fetch(`${base}/health`);
    await new Promise((r) => setTimeout(r, 50));
    // the handler's own span has no request span to join: a root of its own, and no server span at all
    expect(exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER)).toEqual([]);
  });
});
