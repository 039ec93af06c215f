/**
 * The one interface every model provider implements, and the plumbing they share.
 *
 * A provider turns one model call into an async stream of `ProviderEvent`s: text deltas as they arrive,
 * then — once the response is complete — every tool call (arguments assembled and parsed), the usage,
 * and `finish`. Failures are thrown as `ProviderError` with a code the runtime turns into an `error`
 * event. Nothing here knows about HTTP routes, Nest or the database.
 *
 * `ProviderCall` is the per-request guard both SDK-based providers use: an overall deadline, an idle
 * timeout between chunks, the caller's abort signal, host-policy refusals, and the mapping of SDK errors
 * to `ProviderError`. Retries happen only inside the SDKs, before any response body is read, so a call
 * is never retried after a token was emitted.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { HostPolicyError } from '../../../platform/net/host-policy';

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed arguments. `{}` when the model sent none or sent something unparsable (then `argumentsError` says why). */
  arguments: Record<string, unknown>;
  argumentsError?: string;
}

export interface ChatMessage {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  /** assistant messages: the tool calls the model asked for */
  tool_calls?: ToolCall[];
  /** tool messages: the call this is the result of */
  tool_call_id?: string;
  /** tool messages: the tool's name (informational) */
  name?: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments object */
  parameters: object;
}

export interface ProviderRequest {
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  model: string;
  temperature?: number;
  maxTokens?: number;
  signal: AbortSignal;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'error';

export type ProviderEvent =
  | { type: 'text'; delta: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'usage'; input_tokens: number; output_tokens: number }
  | { type: 'finish'; reason: FinishReason };

export interface Provider {
  readonly name: string;
  stream(req: ProviderRequest): AsyncIterable<ProviderEvent>;
}

export type ProviderErrorCode =
  | 'provider_timeout'
  | 'provider_http'
  | 'provider_protocol'
  | 'provider_refused'
  | 'provider_aborted';

export class ProviderError extends Error {
  readonly code: ProviderErrorCode;
  /** upstream HTTP status, when the error is an HTTP answer */
  readonly status?: number;
  /** what the upstream asked us to wait (Retry-After), when it said */
  readonly retryAfterMs?: number;

  constructor(
    code: ProviderErrorCode,
    message: string,
    opts: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ProviderError';
    this.code = code;
    if (opts.status !== undefined) this.status = opts.status;
    if (opts.retryAfterMs !== undefined) this.retryAfterMs = opts.retryAfterMs;
  }
}

/** Parses a tool call's streamed argument text. */
export function parseToolArguments(raw: string): { arguments: Record<string, unknown>; argumentsError?: string } {
  const text = raw.trim();
  if (text === '' || text === 'null') return { arguments: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return { arguments: value as Record<string, unknown> };
    }
    return { arguments: {}, argumentsError: 'tool arguments must be a JSON object' };
  } catch (err) {
    return { arguments: {}, argumentsError: `tool arguments are not valid JSON: ${(err as Error).message}` };
  }
}

// ---------------------------------------------------------------------------------------------
// Shared per-request plumbing for the SDK-based providers

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;
/** Longest Retry-After we let the SDK sleep through; longer ones fail at once with the upstream status. */
export const DEFAULT_MAX_RETRY_DELAY_MS = 20_000;

export interface ProviderCallOptions {
  signal: AbortSignal;
  /** wall-clock budget for the whole call, retries included */
  timeoutMs?: number;
  /** longest silence allowed: waiting for response headers on one attempt, and between chunks */
  idleTimeoutMs?: number;
  maxRetryDelayMs?: number;
}

/** The SDK error classes a provider's SDK exports (both SDKs share these names and shapes). */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIUserAbortError: abstract new (...args: never[]) => Error;
}

type Stop =
  | { kind: 'aborted' }
  | { kind: 'closed' }
  | { kind: 'timeout'; what: 'total' | 'idle'; ms: number }
  | { kind: 'refused'; error: HostPolicyError };

const RETRYABLE_STATUS = (s: number) => s === 408 || s === 409 || s === 429 || s >= 500;

export class ProviderCall {
  readonly timeoutMs: number;
  readonly idleTimeoutMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly controller = new AbortController();
  private readonly startedAt = Date.now();
  private stopped: Stop | null = null;
  private totalTimer: NodeJS.Timeout | undefined;
  /** One idle timer per call: it re-arms itself from the last activity instead of being reset per chunk. */
  private idleTimer: NodeJS.Timeout | undefined;
  private idleArmed = false;
  private lastActivity = 0;
  /** Pending race() waiters, rejected when the call stops (cheaper than a signal listener per chunk). */
  private readonly stopWaiters = new Set<() => void>();
  /** The source stream ended normally: the response is fully read, nothing to cancel on close(). */
  private drained = false;
  private readonly onCallerAbort = () => this.halt({ kind: 'aborted' });

  constructor(
    private readonly providerName: string,
    private readonly opts: ProviderCallOptions,
  ) {
    this.timeoutMs = positive(opts.timeoutMs, DEFAULT_TIMEOUT_MS);
    this.idleTimeoutMs = positive(opts.idleTimeoutMs, DEFAULT_IDLE_TIMEOUT_MS);
    this.maxRetryDelayMs = positive(opts.maxRetryDelayMs, DEFAULT_MAX_RETRY_DELAY_MS);
    if (opts.signal.aborted) {
      this.halt({ kind: 'aborted' });
    } else {
      opts.signal.addEventListener('abort', this.onCallerAbort, { once: true });
      this.totalTimer = setTimeout(() => this.halt({ kind: 'timeout', what: 'total', ms: this.timeoutMs }), this.timeoutMs);
    }
  }

  /** The signal to hand to the SDK: fires on caller abort, deadline, idle timeout or refusal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The SDK's own per-attempt timeout (time to response headers); such timeouts are retried by the SDK. */
  get attemptTimeoutMs(): number {
    return Math.min(this.idleTimeoutMs, this.timeoutMs);
  }

  /**
   * Wraps the fetch the SDK uses: a host-policy refusal stops the call at once (so the SDK does not
   * retry it as a connection error), and a Retry-After longer than we are willing to wait turns off the
   * SDK's retry for that answer (`x-should-retry: false`) instead of sleeping past our deadline.
   */
  wrapFetch(inner: typeof fetch): typeof fetch {
    const wrapped = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      let res: Response;
      try {
        res = await inner(input, init);
      } catch (err) {
        if (err instanceof HostPolicyError) this.halt({ kind: 'refused', error: err });
        throw err;
      }
      if (RETRYABLE_STATUS(res.status)) {
        const wait = retryAfterMs(res.headers);
        const remaining = this.timeoutMs - (Date.now() - this.startedAt);
        if (wait !== undefined && (wait > this.maxRetryDelayMs || wait >= remaining)) {
          const headers = new Headers(res.headers);
          headers.set('x-should-retry', 'false');
          return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
        }
      }
      return res;
    };
    return wrapped as typeof fetch;
  }

  /** Resolves like `p`, but rejects with the stop error as soon as the call is stopped. */
  race<T>(p: Promise<T>): Promise<T> {
    p.catch(() => undefined); // it may reject after we have moved on
    if (this.stopped) return Promise.reject(this.stopError());
    return new Promise<T>((resolve, reject) => {
      const onStop = () => reject(this.stopError());
      this.stopWaiters.add(onStop);
      p.then(
        (v) => {
          this.stopWaiters.delete(onStop);
          resolve(v);
        },
        (e) => {
          this.stopWaiters.delete(onStop);
          reject(e);
        },
      );
    });
  }

  /**
   * Iterates an SDK stream under the idle timeout. The SDKs end a stream silently when its request is
   * aborted; this turns that into the stop error.
   */
  async *chunks<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
    const it = source[Symbol.asyncIterator]();
    let finished = false;
    try {
      while (true) {
        this.armIdle();
        const r = await this.race(it.next());
        this.disarmIdle();
        if (r.done) {
          finished = true;
          this.drained = !this.stopped;
          break;
        }
        yield r.value; // the consumer's time is not idle time
      }
      if (this.stopped) throw this.stopError();
    } finally {
      this.clearIdleTimer();
      if (!finished) Promise.resolve(it.return?.()).catch(() => undefined);
    }
  }

  /** Maps anything thrown during the call to a ProviderError. */
  fail(err: unknown, sdk: SdkErrorClasses): ProviderError {
    if (err instanceof ProviderError) return err;
    if (this.stopped) return this.stopError();
    const who = `the ${this.providerName} model server`;
    if (err instanceof HostPolicyError) return new ProviderError('provider_refused', err.message, { cause: err });
    if (err instanceof sdk.APIUserAbortError) return new ProviderError('provider_aborted', 'The model call was cancelled.');
    if (err instanceof sdk.APIConnectionTimeoutError) {
      return new ProviderError(
        'provider_timeout',
        `No answer from ${who} within ${seconds(this.attemptTimeoutMs)}.`,
        { cause: err },
      );
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
      return new ProviderError('provider_http', `${cap(who)} reported an error in its stream: ${upstream}`, { cause: err });
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
    return new ProviderError('provider_protocol', `Unexpected failure talking to ${who}: ${truncate(String((err as Error)?.message ?? err))}`, {
      cause: err,
    });
  }

  /** An error for a stream that ended without its end marker. */
  incomplete(what: string): ProviderError {
    return new ProviderError('provider_protocol', `The ${this.providerName} model stream ended before ${what}.`);
  }

  /** Releases timers and listeners; cancels the HTTP request if it is still open. Idempotent. */
  close(): void {
    this.opts.signal.removeEventListener('abort', this.onCallerAbort);
    this.halt({ kind: 'closed' });
  }

  private halt(stop: Stop): void {
    if (this.stopped) return;
    this.stopped = stop;
    clearTimeout(this.totalTimer);
    this.clearIdleTimer();
    for (const wake of this.stopWaiters) wake();
    this.stopWaiters.clear();
    // A response read to its end has released its connection: aborting it would only cost time.
    if (stop.kind === 'closed' && this.drained) return;
    this.controller.abort(stop.kind === 'closed' ? undefined : this.stopError());
  }

  private stopError(): ProviderError {
    const s = this.stopped;
    switch (s?.kind) {
      case 'timeout':
        return s.what === 'total'
          ? new ProviderError('provider_timeout', `The ${this.providerName} model did not finish within ${seconds(s.ms)}.`)
          : new ProviderError('provider_timeout', `The ${this.providerName} model stream stalled: no data for ${seconds(s.ms)}.`);
      case 'refused':
        return new ProviderError('provider_refused', s.error.message, { cause: s.error });
      default:
        return new ProviderError('provider_aborted', 'The model call was cancelled.');
    }
  }

  /** Starts an idle period (waiting for the next chunk). */
  private armIdle(): void {
    if (this.stopped) return;
    this.idleArmed = true;
    this.lastActivity = performance.now();
    if (!this.idleTimer) this.idleTimer = setTimeout(this.onIdleTimer, this.idleTimeoutMs);
  }

  /** Ends the idle period; the timer stays and is re-armed lazily when it fires. */
  private disarmIdle(): void {
    this.idleArmed = false;
  }

  private readonly onIdleTimer = () => {
    this.idleTimer = undefined;
    if (this.stopped || !this.idleArmed) return;
    const waited = performance.now() - this.lastActivity;
    if (waited >= this.idleTimeoutMs - 1) this.halt({ kind: 'timeout', what: 'idle', ms: this.idleTimeoutMs });
    else this.idleTimer = setTimeout(this.onIdleTimer, this.idleTimeoutMs - waited);
  };

  private clearIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.idleArmed = false;
  }
}

function positive(v: number | undefined, def: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : def;
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

function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function truncate(s: string, n = 300): string {
  return s.length > n ? s.slice(0, n) + '…' : s;
}

/** The ProviderCall a long-lived SDK client is working for (set around each SDK request). */
export const currentCall = new AsyncLocalStorage<ProviderCall>();

/** A fetch for a long-lived SDK client that applies the current call's rules (see ProviderCall.wrapFetch). */
export function callScopedFetch(inner: typeof fetch): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit) => {
    const call = currentCall.getStore();
    return call ? call.wrapFetch(inner)(input, init) : inner(input, init);
  }) as typeof fetch;
}
