// HTTP for the benchmark: a JSON client for setting things up through the public API, and a timed
// SSE reader (eventsource-parser) used both against the service's /agent/stream and, for "direct"
// figures, against the fake provider's OpenAI stream.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';

export class Api {
  constructor(base) {
    this.base = base;
    this.cookie = null;
    this.bearer = null;
  }

  async request(method, path, body, { expect } = {}) {
    const headers = {};
    if (this.cookie) headers.cookie = this.cookie;
    if (this.bearer) headers.authorization = `Bearer ${this.bearer}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    const set = res.headers.get('set-cookie');
    const m = set && /(?:^|,\s*)sid=([^;]*)/.exec(set);
    if (m) this.cookie = `sid=${m[1]}`;
    const text = await res.text();
    let parsed = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    if (expect !== undefined && ![].concat(expect).includes(res.status)) {
      throw new Error(`${method} ${path} → ${res.status} (expected ${expect}): ${text.slice(0, 600)}`);
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }
  get(path, opts) {
    return this.request('GET', path, undefined, opts);
  }
  post(path, body, opts) {
    return this.request('POST', path, body, opts);
  }
  put(path, body, opts) {
    return this.request('PUT', path, body, opts);
  }
}

/** One connection reused request after request: what a client of the service (or of the provider) keeps. */
export const keepAliveAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
/** For many streams at once: a socket each, nothing pooled. */
export const freshAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/**
 * Sends one request and reads the event stream to its end. Times are ms since the request started.
 * Returns {status, headersAt, firstContentAt, closeAt, endAt, events (names with times, or only
 * counts when `keepEvents` is false), contentText, done, error}.
 * `isContent(event)` says whether an event carries model text (service: `content`; OpenAI: a delta).
 */
export function readStream(
  url,
  { method = 'GET', headers = {}, body, agent = keepAliveAgent, isContent, isClose, keepEvents = true, onEvent } = {},
) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const out = {
      status: 0,
      headersAt: null,
      firstContentAt: null,
      firstContentNs: null,
      closeAt: null,
      endAt: null,
      events: [],
      counts: {},
      contentText: '',
      done: null,
      error: null,
    };
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const u = new URL(url);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        agent,
        headers: {
          accept: 'text/event-stream',
          ...headers,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        out.status = res.statusCode;
        out.headersAt = performance.now() - t0;
        const parser = createParser({
          onEvent(ev) {
            const t = performance.now() - t0;
            const name = ev.event ?? 'message';
            out.counts[name] = (out.counts[name] ?? 0) + 1;
            if (keepEvents) out.events.push({ name, t, data: ev.data });
            const text = isContent?.(ev);
            if (text !== undefined && text !== null && text !== false) {
              if (out.firstContentAt === null) {
                out.firstContentAt = t;
                out.firstContentNs = process.hrtime.bigint();
              }
              if (typeof text === 'string') out.contentText += text;
            }
            if (name === 'done') {
              try {
                out.done = JSON.parse(ev.data);
              } catch {
                /* reported by the caller as a missing done */
              }
            }
            if (out.closeAt === null && isClose?.(ev)) out.closeAt = t;
            onEvent?.(ev, t);
          },
        });
        res.setEncoding('utf8');
        let raw = '';
        res.on('data', (chunk) => {
          if (res.statusCode !== 200) raw += chunk;
          else parser.feed(chunk);
        });
        res.on('end', () => {
          out.endAt = performance.now() - t0;
          if (res.statusCode !== 200) out.error = `HTTP ${res.statusCode}: ${raw.slice(0, 300)}`;
          resolve(out);
        });
        res.on('error', (e) => {
          out.error = String(e);
          out.endAt = performance.now() - t0;
          resolve(out);
        });
      },
    );
    req.on('error', (e) => {
      out.error = String(e);
      out.endAt = performance.now() - t0;
      resolve(out);
    });
    if (payload) req.write(payload);
    req.end();
  });
}

/** Content of an OpenAI Chat Completions chunk (the fake provider's wire format), for `isContent`. */
export function openAiDelta(ev) {
  if (ev.data === '[DONE]') return null;
  try {
    const d = JSON.parse(ev.data).choices?.[0]?.delta;
    return d?.content ? d.content : d?.tool_calls ? true : null;
  } catch {
    return null;
  }
}

/** Reads the service's `content` event text, for `isContent`. */
export function serviceDelta(ev) {
  if (ev.event !== 'content') return null;
  try {
    return JSON.parse(ev.data).delta ?? '';
  } catch {
    return '';
  }
}

export const serviceClose = (ev) => ev.event === 'close';
export const openAiDone = (ev) => ev.data === '[DONE]';

/** A timed JSON request over the keep-alive agent: {status, ms, body}. */
export function timedJson(url, { method = 'GET', headers = {}, body, agent = keepAliveAgent } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const u = new URL(url);
    const t0 = performance.now();
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        agent,
        headers: {
          ...headers,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const ms = performance.now() - t0;
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* keep text */
          }
          resolve({ status: res.statusCode, ms, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}
