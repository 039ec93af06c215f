import { AsyncLocalStorage } from 'node:async_hooks';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { tracingRequested } from './tracing';
import { keepLogStoreInTraceContext, nameAfterRoute, QueryStrippingProcessor } from './tracing-sdk';

describe('tracingRequested', () => {
  test('on with an OTLP endpoint (all signals or traces), off by default and when disabled', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBe(true);
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(tracingRequested({ ...on, OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(tracingRequested({ ...on, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });
});

describe('QueryStrippingProcessor', () => {
  test('query strings never reach the exporter (a chat message travels in one)', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({
      spanProcessors: [new QueryStrippingProcessor(new SimpleSpanProcessor(exporter))],
    });
    const span = provider.getTracer('t').startSpan(
      'GET',
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.url': 'http://h/agent/stream?message=secret+plan',
          'http.target': '/agent/stream?message=secret+plan',
          'url.full': 'http://h/agent/stream?message=secret+plan',
          'url.query': 'message=secret+plan',
          'http.route': '/agent/stream',
        },
      },
      context.active(),
    );
    span.end();
    // only HTTP server spans carry a request URL; the others are passed on as they are
    const other = provider.getTracer('t').startSpan('pg.query:SELECT', { attributes: { 'db.query.text': 'SELECT 1' } });
    other.end();
    const [out, untouched] = exporter.getFinishedSpans();
    expect(out.attributes).toEqual({
      'http.url': 'http://h/agent/stream',
      'http.target': '/agent/stream',
      'url.full': 'http://h/agent/stream',
      'http.route': '/agent/stream',
    });
    expect(untouched.attributes).toEqual({ 'db.query.text': 'SELECT 1' });
  });
});

describe('keepLogStoreInTraceContext', () => {
  afterEach(() => {
    trace.disable();
    context.disable();
    propagation.disable();
  });

  test("the logger's store follows async calls like its own AsyncLocalStorage did, inside the trace context", async () => {
    new NodeTracerProvider().register(); // the context manager tracing-sdk.ts registers (AsyncLocalStorage)
    const storage = new AsyncLocalStorage<{ id: string }>();
    keepLogStoreInTraceContext(storage);
    const tracer = trace.getTracer('t');
    expect(storage.getStore()).toBeUndefined();
    const span = tracer.startSpan('request');
    const seen = await context.with(trace.setSpan(context.active(), span), () =>
      storage.run(
        { id: 'req-1' },
        async (suffix: string) => {
          await new Promise((r) => setTimeout(r, 1));
          const inner = await storage.run({ id: 'req-2' }, async () => {
            await Promise.resolve();
            return storage.getStore()?.id;
          });
          // kept in the trace context: nestjs-pino's own AsyncLocalStorage is never entered
          expect(AsyncLocalStorage.prototype.getStore.call(storage)).toBeUndefined();
          // the span set around run() is still the active one: the store was added to the context, not swapped in
          return [storage.getStore()?.id + suffix, inner, trace.getActiveSpan() === span];
        },
        '!',
      ),
    );
    span.end();
    expect(seen).toEqual(['req-1!', 'req-2', true]);
    expect(storage.getStore()).toBeUndefined();
  });

  test('nestjs-pino uses its storage only through run() and getStore(), the two methods moved', () => {
    const dir = dirname(require.resolve('nestjs-pino/storage'));
    const used = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.js')))
      for (const m of readFileSync(join(dir, file), 'utf8').matchAll(/\bstorage(?:_\d+)?\.storage\.(\w+)/g))
        used.add(m[1]);
    expect([...used].sort()).toEqual(['getStore', 'run']);
  });
});

describe('nameAfterRoute', () => {
  test('the HTTP span is named after the matched route; without one it keeps its name', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer('t');
    const routed = tracer.startSpan('POST', {}, context.active());
    nameAfterRoute(routed, { method: 'POST', route: { path: '/agent/chat' } });
    routed.end();
    const unrouted = tracer.startSpan('GET', {}, context.active());
    nameAfterRoute(unrouted, { method: 'GET' });
    unrouted.end();
    const [a, b] = exporter.getFinishedSpans();
    expect(a.name).toBe('POST /agent/chat');
    expect(a.attributes['http.route']).toBe('/agent/chat');
    expect(b.name).toBe('GET');
    expect(b.attributes).toEqual({});
  });
});
