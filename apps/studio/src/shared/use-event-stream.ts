// The one place the studio opens an SSE stream (docs/API.md). It reads `GET /agent/stream` with fetch +
// eventsource-parser (not EventSource: we need credentials control, problem+json on errors, and the
// Last-Event-ID header on resume). If the connection drops before `close`, it resumes from the last
// event id with backoff; sse-state.ts dedupes by seq so no event is lost or delivered twice.
import { useCallback, useEffect, useRef, useState } from 'react';
import { createParser } from 'eventsource-parser';
import { errorMessage, handleUnauthorized, problemFromResponse } from './http';
import {
  initialSseState,
  isActive,
  reconnectUrl,
  reduceSse,
  type SseAction,
  type SseState,
  type StreamEvent,
} from './sse-state';

export type { StreamEvent } from './sse-state';

export interface UseEventStreamOptions {
  /** Called once per event, in order, after dedupe. */
  onEvent: (event: StreamEvent) => void;
  /** Base path used to resume a run. */
  resumePath?: string;
}

export interface EventStreamHandle {
  state: SseState;
  active: boolean;
  start: (url: string) => void;
  /** Re-attach to a run from `<run_id>:<seq>` (replays what follows, then tails it live). */
  resume: (lastEventId: string) => void;
  stop: () => void;
}

export function useEventStream({ onEvent, resumePath = '/agent/stream' }: UseEventStreamOptions): EventStreamHandle {
  const [state, setState] = useState<SseState>(initialSseState);
  const stateRef = useRef<SseState>(initialSseState);
  const onEventRef = useRef(onEvent);
  const generation = useRef(0);
  const controller = useRef<AbortController | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    onEventRef.current = onEvent;
  }, [onEvent]);

  const dispatch = useCallback((gen: number, action: SseAction): SseState | null => {
    if (gen !== generation.current) return null;
    const step = reduceSse(stateRef.current, action);
    stateRef.current = step.state;
    setState(step.state);
    if (step.event) onEventRef.current(step.event);
    return step.state;
  }, []);

  const connect = useCallback(
    async (gen: number, url: string, lastEventId: string | null): Promise<void> => {
      const ctrl = new AbortController();
      controller.current = ctrl;

      const scheduleIfNeeded = (s: SseState | null) => {
        if (!s || s.status !== 'reconnecting' || !s.lastEventId) return;
        const id = s.lastEventId;
        timer.current = setTimeout(() => {
          timer.current = null;
          void connect(gen, reconnectUrl(id, resumePath), id);
        }, s.retryDelayMs);
      };

      const headers: Record<string, string> = { Accept: 'text/event-stream' };
      if (lastEventId) headers['Last-Event-ID'] = lastEventId;

      let res: Response;
      try {
        res = await fetch(url, { credentials: 'same-origin', headers, signal: ctrl.signal, cache: 'no-store' });
      } catch {
        if (ctrl.signal.aborted) return;
        scheduleIfNeeded(dispatch(gen, { type: 'dropped', reason: 'network error' }));
        return;
      }
      if (!res.ok) {
        handleUnauthorized(res.status);
        const err = await problemFromResponse(res);
        if (ctrl.signal.aborted) return;
        scheduleIfNeeded(
          dispatch(gen, { type: 'http_error', status: res.status, message: errorMessage(err), code: err.code }),
        );
        return;
      }
      if (!res.body) {
        scheduleIfNeeded(dispatch(gen, { type: 'dropped', reason: 'empty response' }));
        return;
      }

      dispatch(gen, { type: 'opened' });
      const parser = createParser({
        onEvent: (message) => {
          dispatch(gen, { type: 'message', message });
        },
      });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
          if (stateRef.current.closed || gen !== generation.current) break;
        }
      } catch {
        if (ctrl.signal.aborted) return;
      } finally {
        reader.cancel().catch(() => undefined);
      }
      if (ctrl.signal.aborted || gen !== generation.current) return;
      scheduleIfNeeded(dispatch(gen, { type: 'dropped', reason: 'connection closed' }));
    },
    [dispatch, resumePath],
  );

  const halt = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    controller.current?.abort();
    controller.current = null;
  }, []);

  const start = useCallback(
    (url: string) => {
      halt();
      generation.current += 1;
      const gen = generation.current;
      dispatch(gen, { type: 'connect' });
      void connect(gen, url, null);
    },
    [connect, dispatch, halt],
  );

  const resume = useCallback(
    (lastEventId: string) => {
      halt();
      generation.current += 1;
      const gen = generation.current;
      dispatch(gen, { type: 'connect', resumeFrom: lastEventId });
      void connect(gen, reconnectUrl(lastEventId, resumePath), lastEventId);
    },
    [connect, dispatch, halt, resumePath],
  );

  const stop = useCallback(() => {
    dispatch(generation.current, { type: 'abort' });
    generation.current += 1;
    halt();
  }, [dispatch, halt]);

  useEffect(
    () => () => {
      generation.current += 1;
      halt();
    },
    [halt],
  );

  return { state, active: isActive(state), start, resume, stop };
}
