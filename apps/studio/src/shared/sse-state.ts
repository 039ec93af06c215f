// Pure state machine behind useEventStream: dedupes events by `<run_id>:<seq>`, tracks the last event
// id, and decides whether a dropped connection is finished, must be resumed (with backoff), or failed.
// No DOM, no React — tested with jest in sse-state.spec.ts.

/** A message as produced by eventsource-parser. */
export interface SseMessage {
  id?: string | undefined;
  event?: string | undefined;
  data: string;
}

export interface StreamEvent {
  id: string | null;
  runId: string | null;
  seq: number | null;
  name: string;
  data: unknown;
}

export type StreamStatus = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed' | 'failed' | 'aborted';

export interface SseState {
  status: StreamStatus;
  runId: string | null;
  /** Highest seq accepted for `runId`; -1 when none. */
  lastSeq: number;
  lastEventId: string | null;
  /** Consecutive reconnect attempts without receiving a new event. */
  attempt: number;
  /** Delay before the next reconnect, when status is `reconnecting`. */
  retryDelayMs: number;
  received: number;
  duplicates: number;
  closed: boolean;
  error: string | null;
  httpStatus: number | null;
  /** The problem `code` of the last HTTP error (e.g. `turn_in_progress`), when it had one. */
  errorCode: string | null;
}

export type SseAction =
  | { type: 'connect'; resumeFrom?: string }
  | { type: 'opened' }
  | { type: 'message'; message: SseMessage }
  | { type: 'dropped'; reason?: string }
  | { type: 'http_error'; status: number; message: string; code?: string }
  | { type: 'abort' };

export interface SseStep {
  state: SseState;
  /** The event to deliver, or null when the message was a duplicate or arrived after `close`. */
  event: StreamEvent | null;
}

export const MAX_RECONNECT_ATTEMPTS = 8;
export const BACKOFF_BASE_MS = 500;
export const BACKOFF_MAX_MS = 8000;

export const initialSseState: SseState = {
  status: 'idle',
  runId: null,
  lastSeq: -1,
  lastEventId: null,
  attempt: 0,
  retryDelayMs: 0,
  received: 0,
  duplicates: 0,
  closed: false,
  error: null,
  httpStatus: null,
  errorCode: null,
};

/** `"42:7"` → `{ runId: "42", seq: 7 }`; the run id may itself contain colons. */
export function parseEventId(id: string | undefined | null): { runId: string; seq: number } | null {
  if (!id) return null;
  const at = id.lastIndexOf(':');
  if (at <= 0 || at === id.length - 1) return null;
  const seqText = id.slice(at + 1);
  if (!/^\d+$/.test(seqText)) return null;
  return { runId: id.slice(0, at), seq: Number(seqText) };
}

export function backoffDelay(attempt: number, base = BACKOFF_BASE_MS, max = BACKOFF_MAX_MS): number {
  const n = Math.max(1, attempt);
  return Math.min(max, base * 2 ** (n - 1));
}

/** URL used to resume a run after a drop (the header `Last-Event-ID` carries the same value). */
export function reconnectUrl(lastEventId: string, base = '/agent/stream'): string {
  return `${base}?last_event_id=${encodeURIComponent(lastEventId)}`;
}

function parseData(data: string): unknown {
  if (data === '') return {};
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

function retryable(status: number): boolean {
  return status === 0 || status === 429 || status >= 500;
}

function planRetry(state: SseState, reason: string): SseState {
  if (!state.lastEventId) {
    // Nothing identifies the run yet: resuming could start a second run, so give up.
    return { ...state, status: 'failed', error: reason || 'The connection was lost before the run started.' };
  }
  const attempt = state.attempt + 1;
  if (attempt > MAX_RECONNECT_ATTEMPTS) {
    return {
      ...state,
      status: 'failed',
      attempt,
      error: `Lost the connection to the run and could not resume it${reason ? ` (${reason})` : ''}.`,
    };
  }
  return { ...state, status: 'reconnecting', attempt, retryDelayMs: backoffDelay(attempt), error: null };
}

export function reduceSse(state: SseState, action: SseAction): SseStep {
  switch (action.type) {
    case 'connect': {
      // Re-attaching to a known run (`<run_id>:<seq>`): it is resumable from the start, even before an event.
      const from = parseEventId(action.resumeFrom);
      const seeded = from ? { runId: from.runId, lastSeq: from.seq, lastEventId: action.resumeFrom ?? null } : {};
      return { state: { ...initialSseState, ...seeded, status: 'connecting' }, event: null };
    }

    case 'opened':
      if (state.closed) return { state, event: null };
      return { state: { ...state, status: 'open', httpStatus: null }, event: null };

    case 'message': {
      if (state.closed || state.status === 'aborted') return { state, event: null };
      const msg = action.message;
      const parsed = parseEventId(msg.id);
      if (parsed && parsed.runId === state.runId && parsed.seq <= state.lastSeq) {
        return { state: { ...state, duplicates: state.duplicates + 1 }, event: null };
      }
      const name = msg.event || 'message';
      const event: StreamEvent = {
        id: msg.id ?? null,
        runId: parsed?.runId ?? null,
        seq: parsed?.seq ?? null,
        name,
        data: parseData(msg.data),
      };
      const closed = name === 'close';
      const next: SseState = {
        ...state,
        status: closed ? 'closed' : 'open',
        closed,
        received: state.received + 1,
        attempt: 0,
        error: null,
        ...(parsed ? { runId: parsed.runId, lastSeq: parsed.seq, lastEventId: msg.id ?? null } : {}),
      };
      return { state: next, event };
    }

    case 'dropped':
      if (state.closed) return { state: { ...state, status: 'closed' }, event: null };
      if (state.status === 'aborted') return { state, event: null };
      return { state: planRetry(state, action.reason ?? ''), event: null };

    case 'http_error':
      if (state.closed || state.status === 'aborted') return { state, event: null };
      if (state.lastEventId && retryable(action.status)) {
        return {
          state: { ...planRetry(state, action.message), httpStatus: action.status, errorCode: action.code ?? null },
          event: null,
        };
      }
      return {
        state: {
          ...state,
          status: 'failed',
          error: action.message,
          httpStatus: action.status,
          errorCode: action.code ?? null,
        },
        event: null,
      };

    case 'abort':
      if (state.closed) return { state, event: null };
      return { state: { ...state, status: 'aborted' }, event: null };
  }
}

/** True while a request is in flight or about to be retried. */
export function isActive(state: SseState): boolean {
  return state.status === 'connecting' || state.status === 'open' || state.status === 'reconnecting';
}
