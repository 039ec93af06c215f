/** Reads GET /agent/stream with fetch + eventsource-parser, as a real client would. */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseEvent {
  id: string;
  seq: number;
  event: string;
  data: any;
}

export interface StreamOptions {
  headers?: Record<string, string>;
  /** stop reading (disconnect) after this many events */
  stopAfter?: number;
  /** called for each event; return true to disconnect */
  onEvent?: (e: SseEvent) => boolean | void;
  /** fail (instead of waiting forever) when the stream has not ended by then; default 120 s */
  timeoutMs?: number;
}

export async function readStream(
  url: string,
  opts: StreamOptions = {},
): Promise<{ status: number; headers: Headers; events: SseEvent[]; comments: number; body?: any }> {
  const ctrl = new AbortController();
  const ms = opts.timeoutMs ?? 120_000;
  const deadline = setTimeout(() => ctrl.abort(new Error(`the stream did not end within ${ms} ms: ${url}`)), ms);
  try {
    return await read(url, opts, ctrl);
  } finally {
    clearTimeout(deadline);
  }
}

async function read(
  url: string,
  opts: StreamOptions,
  ctrl: AbortController,
): Promise<{ status: number; headers: Headers; events: SseEvent[]; comments: number; body?: any }> {
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...opts.headers }, signal: ctrl.signal });
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      events: [],
      comments: 0,
      body: text ? JSON.parse(text) : undefined,
    };
  }
  const events: SseEvent[] = [];
  let comments = 0;
  let stop = false;
  const parser = createParser({
    onEvent(m: EventSourceMessage) {
      const seq = Number((m.id ?? '').split(':')[1]);
      const e = { id: m.id ?? '', seq, event: m.event ?? 'message', data: m.data ? JSON.parse(m.data) : null };
      events.push(e);
      if (opts.onEvent?.(e) || (opts.stopAfter !== undefined && events.length >= opts.stopAfter)) stop = true;
    },
    onComment() {
      comments++;
    },
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  try {
    while (!stop) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    if (stop) ctrl.abort();
    else reader.releaseLock();
  }
  return { status: res.status, headers: res.headers, events, comments };
}

export const names = (events: SseEvent[]) => events.map((e) => e.event);
