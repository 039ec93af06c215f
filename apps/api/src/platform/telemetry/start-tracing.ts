/**
 * Imported first by main.ts, before Nest, Express or pg are loaded: when the environment asks for
 * traces (tracing.ts), the OpenTelemetry SDK starts here, so its HTTP and pg instrumentations patch
 * those modules as they load (docs/decisions/observability.md). Otherwise the SDK is never required.
 */
import { setTracingHandle, tracingRequested } from './tracing';

if (tracingRequested(process.env)) {
  // a require, not an import: the SDK must not even load when tracing is off
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./tracing-sdk') as typeof import('./tracing-sdk');
  setTracingHandle(sdk.startTracingSdk());
}
