/**
 * The OpenTelemetry SDK, set up from the standard OTEL_* variables (docs/OPERATIONS.md,
 * "Observability"): a Node tracer provider (AsyncLocalStorage context, W3C `traceparent` propagation),
 * spans batched to OTLP/HTTP (JSON) at OTEL_EXPORTER_OTLP_ENDPOINT, the HTTP server and pg
 * instrumentations. Loaded only by start-tracing.ts, and only when tracing is asked for.
 */
import type { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import { context, createContextKey, SpanKind, type Context, type Span as ApiSpan } from '@opentelemetry/api';
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
    // only the HTTP server spans carry the request's URL: the other dozen spans of a turn pass untouched
    if (span.kind !== SpanKind.SERVER) return this.next.onEnd(span);
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

/** Where the request's logger (nestjs-pino's store) lives while tracing is on: in the OpenTelemetry context. */
const LOG_STORE = createContextKey('nestjs-pino store');

/**
 * One AsyncLocalStorage instead of two. nestjs-pino keeps each request's logger in an
 * `AsyncLocalStorage` of its own (`nestjs-pino/storage`), and the tracer provider's context manager is
 * another; on Node 20 every promise the process creates pays for each one that is enabled (~2,000
 * promises a turn). With tracing on, the logger's store travels in the OpenTelemetry context instead:
 * nestjs-pino only calls `storage.run(store, fn)` and `storage.getStore()`, and both keep their meaning
 * (the store of the innermost `run` around the current async call). nestjs-pino's own storage is then
 * never entered, so Node never enables it. Must run before nestjs-pino's middleware first runs.
 */
export function keepLogStoreInTraceContext<T>(storage: AsyncLocalStorage<T>) {
  storage.run = (store: T, fn: (...args: unknown[]) => unknown, ...args: unknown[]) =>
    context.with(context.active().setValue(LOG_STORE, store), fn, undefined, ...args);
  storage.getStore = () => context.active().getValue(LOG_STORE) as T | undefined;
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
  // before nestjs-pino's middleware first runs (this module loads before the app's modules)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  keepLogStoreInTraceContext((require('nestjs-pino/storage') as typeof import('nestjs-pino/storage')).storage);
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
