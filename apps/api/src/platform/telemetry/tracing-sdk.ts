/**
 * The OpenTelemetry SDK, set up from the standard OTEL_* variables (docs/OPERATIONS.md,
 * "Observability"): a Node tracer provider (AsyncLocalStorage context, W3C `traceparent` propagation),
 * spans batched to OTLP/HTTP at OTEL_EXPORTER_OTLP_ENDPOINT — protobuf, OTLP's default, or JSON with
 * OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL=http/json — and the pg instrumentation. The HTTP server spans are
 * the app's own middleware (http-spans.ts). Loaded only by start-tracing.ts, and only when tracing is asked for.
 */
import type { AsyncLocalStorage } from 'node:async_hooks';
import { context, createContextKey } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { disabledInstrumentations, type TracingHandle } from './tracing';

export const SERVICE_NAME = 'agentic-workflow-service';

/**
 * The encoding of the export: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL,
 * else http/protobuf (the OTLP exporter default, and the cheaper one to encode here: docs/performance.md,
 * "Telemetry"). The configuration check refuses any other value at boot.
 */
export function otlpProtocol(env: NodeJS.ProcessEnv): 'http/protobuf' | 'http/json' {
  const asked = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || '').trim().toLowerCase();
  return asked === 'http/json' ? 'http/json' : 'http/protobuf';
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
    spanProcessors: [
      new BatchSpanProcessor(
        otlpProtocol(process.env) === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter(),
      ),
    ],
  });
  provider.register();
  // before nestjs-pino's middleware first runs (this module loads before the app's modules)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  keepLogStoreInTraceContext((require('nestjs-pino/storage') as typeof import('nestjs-pino/storage')).storage);
  // the database statements (OTEL_NODE_DISABLED_INSTRUMENTATIONS=pg leaves them out): only inside a
  // traced request or turn (not the pool's own housekeeping), never their values; no span per connection
  // checkout (one per statement is what a reader needs, at half the cost)
  if (!disabledInstrumentations(process.env).has('pg'))
    registerInstrumentations({
      tracerProvider: provider,
      instrumentations: [
        new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true }),
      ],
    });
  return { shutdown: () => provider.shutdown() };
}
