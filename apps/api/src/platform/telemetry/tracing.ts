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

export function setTracingHandle(h: TracingHandle) {
  handle = h;
}

/** True when the SDK was started in this process (by start-tracing.ts, before the app's modules loaded). */
export function tracingOn(): boolean {
  return handle !== null;
}

/** Flushes and stops the exporter (at shutdown); nothing when tracing is off. */
export async function stopTracing(): Promise<void> {
  const h = handle;
  handle = null;
  if (h) await h.shutdown();
}
