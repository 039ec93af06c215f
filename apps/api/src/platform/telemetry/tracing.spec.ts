import { AsyncLocalStorage } from 'node:async_hooks';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { context, propagation, trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { disabledInstrumentations, tracingRequested } from './tracing';
import { keepLogStoreInTraceContext, otlpProtocol } from './tracing-sdk';

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

describe('otlpProtocol', () => {
  test('protobuf (the OTLP default) unless http/json is asked for, the traces variable first', () => {
    expect(otlpProtocol({})).toBe('http/protobuf');
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'HTTP/JSON ' })).toBe('http/json');
    expect(
      otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }),
    ).toBe('http/protobuf');
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })).toBe('http/json');
  });
});

describe('disabledInstrumentations', () => {
  test('a comma-separated list, any case and spacing', () => {
    expect(disabledInstrumentations({})).toEqual(new Set(['']));
    expect([...disabledInstrumentations({ OTEL_NODE_DISABLED_INSTRUMENTATIONS: ' HTTP, pg' })]).toEqual(['http', 'pg']);
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
