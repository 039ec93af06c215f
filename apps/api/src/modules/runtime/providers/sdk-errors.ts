// How the SDK-based providers turn what their SDK throws into a ProviderError: readable messages that
// name the model server, the upstream status and Retry-After.
import { HostPolicyError } from '../../../platform/net/host-policy';
import { ProviderError } from './provider';

/** The SDK error classes a provider's SDK exports (both SDKs share these names and shapes). */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIUserAbortError: abstract new (...args: never[]) => Error;
}

/**
 * Maps an error thrown by an SDK call (not one caused by the call being stopped) to a ProviderError.
 * `who` names the server in messages; `attemptTimeoutMs` is the per-attempt timeout the SDK was given.
 */
export function sdkErrorToProviderError(
  err: unknown,
  sdk: SdkErrorClasses,
  who: string,
  attemptTimeoutMs: number,
): ProviderError {
  if (err instanceof HostPolicyError) return new ProviderError('provider_refused', err.message, { cause: err });
  if (err instanceof sdk.APIUserAbortError)
    return new ProviderError('provider_aborted', 'The model call was cancelled.');
  if (err instanceof sdk.APIConnectionTimeoutError) {
    return new ProviderError('provider_timeout', `No answer from ${who} within ${seconds(attemptTimeoutMs)}.`, {
      cause: err,
    });
  }
  if (err instanceof sdk.APIConnectionError) {
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof HostPolicyError) return new ProviderError('provider_refused', cause.message, { cause });
    const why = cause instanceof Error ? describeNetworkError(cause) : err.message;
    return new ProviderError('provider_http', `Could not connect to ${who}: ${why}.`, { cause: err });
  }
  if (err instanceof sdk.APIError) {
    const e = err as Error & { status?: number; headers?: Headers; error?: unknown };
    const upstream = truncate(upstreamMessage(e));
    if (typeof e.status === 'number') {
      if (e.status >= 300 && e.status < 400) {
        const location = e.headers?.get?.('location');
        return new ProviderError(
          'provider_http',
          `${cap(who)} answered with a redirect (HTTP ${e.status}${location ? ` to ${truncate(location, 200)}` : ''}); ` +
            `redirects are not followed — set the model's api_base to the final URL.`,
          { status: e.status, cause: err },
        );
      }
      const retryAfter = e.headers ? retryAfterMs(e.headers) : undefined;
      return new ProviderError('provider_http', `${cap(who)} answered HTTP ${e.status}: ${upstream}`, {
        status: e.status,
        retryAfterMs: retryAfter,
        cause: err,
      });
    }
    return new ProviderError('provider_http', `${cap(who)} reported an error in its stream: ${upstream}`, {
      cause: err,
    });
  }
  if (err instanceof SyntaxError) {
    return new ProviderError('provider_protocol', `${cap(who)} sent a malformed stream: ${truncate(err.message)}`, {
      cause: err,
    });
  }
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) {
    return new ProviderError('provider_aborted', 'The model call was cancelled.', { cause: err });
  }
  if (err instanceof TypeError) {
    // undici: "terminated" / "other side closed" when the connection drops mid-body
    return new ProviderError(
      'provider_protocol',
      `The connection to ${who} was lost before the response finished (${describeNetworkError(err)}).`,
      { cause: err },
    );
  }
  return new ProviderError(
    'provider_protocol',
    `Unexpected failure talking to ${who}: ${truncate(String((err as Error)?.message ?? err))}`,
    {
      cause: err,
    },
  );
}

/** Retry-After / retry-after-ms in milliseconds, if present and sane. */
export function retryAfterMs(headers: Headers): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(parseFloat(ms))) return Math.max(0, parseFloat(ms));
  const ra = headers.get('retry-after');
  if (!ra) return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function upstreamMessage(e: { message: string; error?: unknown }): string {
  const body = e.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const m = body?.error?.message ?? body?.message;
  if (typeof m === 'string' && m) return m;
  return e.message.replace(/^\d{3}\s+/, '');
}

function describeNetworkError(err: Error): string {
  const cause = (err as { cause?: unknown }).cause;
  const code = (cause as { code?: string } | undefined)?.code;
  const inner = cause instanceof Error ? cause.message : '';
  return truncate([err.message, code && !inner.includes(code) ? code : '', inner].filter(Boolean).join(': '));
}

export function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function truncate(s: string, n = 300): string {
  return s.length > n ? s.slice(0, n) + '…' : s;
}
