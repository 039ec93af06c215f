/**
 * `ProviderCall` is the per-request guard both SDK-based providers use: an overall deadline, an idle
 * timeout between chunks, the caller's abort signal, host-policy refusals, and the mapping of SDK errors
 * to `ProviderError` (sdk-errors.ts). Retries happen only inside the SDKs, before any response body is
 * read, so a call is never retried after a token was emitted.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { HostPolicyError } from '../../../platform/net/host-policy';
import { ProviderError } from './provider';
import { retryAfterMs, sdkErrorToProviderError, seconds, type SdkErrorClasses } from './sdk-errors';

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
      this.totalTimer = setTimeout(
        () => this.halt({ kind: 'timeout', what: 'total', ms: this.timeoutMs }),
        this.timeoutMs,
      );
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
    return wrapped;
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
        (e: unknown) => {
          this.stopWaiters.delete(onStop);
          reject(e); // the provider's own rejection, forwarded as it is
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
    return sdkErrorToProviderError(err, sdk, `the ${this.providerName} model server`, this.attemptTimeoutMs);
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
          ? new ProviderError(
              'provider_timeout',
              `The ${this.providerName} model did not finish within ${seconds(s.ms)}.`,
            )
          : new ProviderError(
              'provider_timeout',
              `The ${this.providerName} model stream stalled: no data for ${seconds(s.ms)}.`,
            );
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

/** The ProviderCall a long-lived SDK client is working for (set around each SDK request). */
export const currentCall = new AsyncLocalStorage<ProviderCall>();

/** A fetch for a long-lived SDK client that applies the current call's rules (see ProviderCall.wrapFetch). */
export function callScopedFetch(inner: typeof fetch): typeof fetch {
  return (input: string | URL | Request, init?: RequestInit) => {
    const call = currentCall.getStore();
    return call ? call.wrapFetch(inner)(input, init) : inner(input, init);
  };
}
