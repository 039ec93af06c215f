/**
 * The OpenTelemetry SDK, set up from the standard OTEL_* variables (docs/OPERATIONS.md,
 * "Observability"): a Node tracer provider (AsyncLocalStorage context, W3C `traceparent` propagation),
 * spans batched to OTLP/HTTP (JSON) at OTEL_EXPORTER_OTLP_ENDPOINT, the HTTP server and pg
 * instrumentations. Loaded only by start-tracing.ts, and only when tracing is asked for.
 */
import type { IncomingMessage } from 'node:http';
import { type Context, type Span as ApiSpan } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import type { TracingHandle } from './tracing';

export const SERVICE_NAME = 'agentic-workflow-service';

/** Scrapes and probes make no traces (a span every few seconds, saying nothing). */
const UNTRACED_PATHS = /^\/(health|metrics)(\/|\?|$)/;

/** Span attributes that carry a URL or its query string (old and current HTTP semantic conventions). */
const URL_ATTRIBUTES = ['http.url', 'http.target', 'url.full', 'url.query'];

/**
 * Query strings never leave the process (like the logs, docs/OPERATIONS.md "Health and logs"): a chat
 * message travels in `/agent/stream?message=…`. The attributes are cut before the span is exported.
 */
export class QueryStrippingProcessor implements SpanProcessor {
  constructor(private readonly next: SpanProcessor) {}
  onStart(span: Span, parent: Context) {
    this.next.onStart(span, parent);
  }
  onEnd(span: ReadableSpan) {
    const attrs = span.attributes as Record<string, unknown>;
    for (const key of URL_ATTRIBUTES) {
      const v = attrs[key];
      if (typeof v !== 'string') continue;
      if (key === 'url.query') delete attrs[key];
      else if (v.includes('?')) attrs[key] = v.slice(0, v.indexOf('?'));
    }
    this.next.onEnd(span);
  }
  forceFlush() {
    return this.next.forceFlush();
  }
  shutdown() {
    return this.next.shutdown();
  }
}

/**
 * The instrumentation sees only the method when the request starts; by its end Express has matched a
 * route (`req.route`), so the span is named after it (`POST /agent/chat`) and gets `http.route`. A request
 * answered before routing (a 401 from the guard, a 404) keeps the bare method.
 */
export function nameAfterRoute(span: ApiSpan, request: unknown) {
  const req = request as { method?: string; route?: { path?: unknown } };
  const route = req.route?.path;
  if (typeof route !== 'string') return;
  span.updateName(`${req.method ?? 'HTTP'} ${route}`);
  span.setAttribute('http.route', route);
}

export function startTracingSdk(): TracingHandle {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win over the defaults
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    // OTEL_EXPORTER_OTLP_ENDPOINT / _TRACES_ENDPOINT, _HEADERS, _TIMEOUT are read by the exporter;
    // OTEL_BSP_* by the batch processor; OTEL_TRACES_SAMPLER(_ARG) by the provider
    spanProcessors: [new QueryStrippingProcessor(new BatchSpanProcessor(new OTLPTraceExporter()))],
  });
  provider.register();
  // OTEL_NODE_DISABLED_INSTRUMENTATIONS=http,pg (the name auto-instrumentations-node reads) leaves those out
  const disabled = new Set(
    (process.env.OTEL_NODE_DISABLED_INSTRUMENTATIONS ?? '').split(',').map((s) => s.trim().toLowerCase()),
  );
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      disabled.has('http')
        ? []
        : new HttpInstrumentation({
            ignoreIncomingRequestHook: (req: IncomingMessage) => UNTRACED_PATHS.test(req.url ?? ''),
            // the server makes no outgoing node:http calls worth a span (the model SDKs use fetch)
            disableOutgoingRequestInstrumentation: true,
            applyCustomAttributesOnSpan: nameAfterRoute,
          }),
      // statements only inside a traced request or turn (not the pool's own housekeeping), never their
      // values; no span per connection checkout (one per statement is what a reader needs, at half the cost)
      disabled.has('pg')
        ? []
        : new PgInstrumentation({
            requireParentSpan: true,
            enhancedDatabaseReporting: false,
            ignoreConnectSpans: true,
          }),
    ],
  });
  return { shutdown: () => provider.shutdown() };
}
