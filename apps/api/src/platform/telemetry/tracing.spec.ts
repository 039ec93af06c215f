import { context } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { tracingRequested } from './tracing';
import { nameAfterRoute, QueryStrippingProcessor } from './tracing-sdk';

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
    const [out] = exporter.getFinishedSpans();
    expect(out.attributes).toEqual({
      'http.url': 'http://h/agent/stream',
      'http.target': '/agent/stream',
      'url.full': 'http://h/agent/stream',
      'http.route': '/agent/stream',
    });
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
