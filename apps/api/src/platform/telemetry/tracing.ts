/**
 * Whether this process exports traces, decided once at boot (docs/decisions/observability.md). This
 * file loads no OpenTelemetry SDK: start-tracing.ts loads it, and only when asked, so a server without
 * OTEL_EXPORTER_OTLP_ENDPOINT pays nothing (the spans the code asks for go to `@opentelemetry/api`'s
 * no-op tracer, and the turn code does not even ask: tracingOn() is false).
 */

export interface TracingHandle {
  /** Sends the spans still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

let handle: TracingHandle | null = null;

/**
 * The standard variables that turn the exporter on: an OTLP endpoint (for every signal, or for traces),
 * unless OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  if ((env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase() === 'none') return false;
  return set('OTEL_EXPORTER_OTLP_ENDPOINT') || set('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
}

/**
 * The parts of a trace the operator left out: OTEL_NODE_DISABLED_INSTRUMENTATIONS (the variable
 * `@opentelemetry/auto-instrumentations-node` reads), a comma-separated list — `http` (the request
 * spans, http-spans.ts), `pg` (the database statements).
 */
export function disabledInstrumentations(env: NodeJS.ProcessEnv): Set<string> {
  return new Set((env.OTEL_NODE_DISABLED_INSTRUMENTATIONS ?? '').split(',').map((s) => s.trim().toLowerCase()));
}

export function setTracingHandle(h: TracingHandle) {
  handle = h;
}

/** True when the SDK was started in this process (by start-tracing.ts, before the app's modules loaded). */
export function tracingOn(): boolean {
  return handle !== null;
}

/** Whether requests get their HTTP server span (http-spans.ts): tracing on, `http` not left out. */
export function httpSpansOn(): boolean {
  return handle !== null && !disabledInstrumentations(process.env).has('http');
}

/** Flushes and stops the exporter (at shutdown); nothing when tracing is off. */
export async function stopTracing(): Promise<void> {
  const h = handle;
  handle = null;
  if (h) await h.shutdown();
}
