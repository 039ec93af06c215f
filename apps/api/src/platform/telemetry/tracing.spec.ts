import { context } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { tracingRequested } from './tracing';
import { QueryStrippingProcessor } from './tracing-sdk';

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
