/**
 * A fake LLM server for tests and benchmarks, speaking the real wire formats over real HTTP:
 * OpenAI Chat Completions (`POST …/chat/completions`, `data:` chunks, `data: [DONE]`, usage chunk when
 * `stream_options.include_usage`) and Anthropic Messages (`POST …/messages`, `event:`/`data:` pairs
 * from `message_start` to `message_stop`), streaming or not, as the request asks.
 *
 * Each request takes the next scripted turn from the queue, or `defaultTurn` when the queue is empty.
 * Every request is recorded in `requests` (path, parsed body, lower-cased headers). The answers' wire
 * formats are in fake-openai-wire.ts and fake-anthropic-wire.ts.
 */
import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { anthropicErrorType, anthropicMessage, streamAnthropic } from './fake-anthropic-wire';
import type { FakeTurn, PacedStream } from './fake-llm-turn';
import { openAiCompletion, openAiErrorType, streamOpenAi } from './fake-openai-wire';

export { splitTokens, type FakeToolCall, type FakeTurn } from './fake-llm-turn';

export interface RecordedRequest {
  method: string;
  path: string;
  /** parsed JSON, or the raw text when it was not JSON */
  body: any;
  headers: IncomingHttpHeaders;
}

export interface FakeLlmOptions {
  port?: number;
  host?: string;
  defaultTurn?: FakeTurn;
}

type Format = 'openai' | 'anthropic';

export class FakeLlm {
  url = '';
  openaiBase = '';
  anthropicBase = '';
  defaultTurn: FakeTurn;
  readonly requests: RecordedRequest[] = [];
  private readonly queue: FakeTurn[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  private constructor(
    private readonly server: Server,
    opts: FakeLlmOptions,
  ) {
    this.defaultTurn = opts.defaultTurn ?? { text: 'ok' };
  }

  static async start(opts: FakeLlmOptions = {}): Promise<FakeLlm> {
    const server = createServer();
    const fake = new FakeLlm(server, opts);
    server.on('request', (req, res) => {
      fake.handle(req, res).catch((err) => {
        if (!res.headersSent && !res.destroyed) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: String(err) } }));
        } else {
          res.destroy();
        }
      });
    });
    server.on('connection', (s) => {
      fake.sockets.add(s);
      s.on('close', () => fake.sockets.delete(s));
    });
    const host = opts.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    fake.url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    fake.openaiBase = `${fake.url}/v1`;
    fake.anthropicBase = fake.url; // the Anthropic SDK appends /v1/messages
    return fake;
  }

  /** Scripts the next turns, answered in order, one per request. */
  enqueue(...turns: FakeTurn[]): void {
    this.queue.push(...turns);
  }

  /** Turns still queued. */
  get pending(): number {
    return this.queue.length;
  }

  /** Forgets queued turns and recorded requests. */
  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
  }

  /** Stops listening and destroys every open connection, hung ones included. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const done = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections?.();
    await done;
  }

  // -------------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    let body: any = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* keep the raw text */
    }
    const path = (req.url ?? '/').split('?')[0];
    this.requests.push({ method: req.method ?? 'GET', path, body, headers: req.headers });

    if (req.method === 'GET' && path.endsWith('/models')) {
      return json(res, 200, {
        object: 'list',
        data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }],
      });
    }
    const format: Format | null =
      req.method === 'POST' && path.endsWith('/chat/completions')
        ? 'openai'
        : req.method === 'POST' && path.endsWith('/messages')
          ? 'anthropic'
          : null;
    if (!format) {
      return json(res, 404, { error: { message: `no route for ${req.method} ${path}`, type: 'not_found' } });
    }

    const turn = this.queue.shift() ?? this.defaultTurn;
    if (turn.hang) return; // the socket stays open until the client gives up or we close
    if (turn.status && turn.status !== 200) return this.sendError(res, format, turn);
    const streaming = typeof body === 'object' && body !== null && body.stream === true;
    if (turn.garbage) return this.sendGarbage(res, format);
    if (!streaming) return this.sendJson(res, format, turn, body);
    const paced = this.stream(res, turn);
    return format === 'openai' ? streamOpenAi(paced, turn, body) : streamAnthropic(paced, turn, body);
  }

  private sendError(res: ServerResponse, format: Format, turn: FakeTurn): void {
    const status = turn.status!;
    const headers: Record<string, string> = {};
    const retryAfter = turn.retryAfter ?? (status === 429 ? 1 : undefined);
    if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
    if (turn.retryAfterMs !== undefined) headers['retry-after-ms'] = String(turn.retryAfterMs);
    if (status >= 300 && status < 400) headers.location = `${this.url}/moved`;
    const message = `fake ${status} error`;
    const body =
      format === 'openai'
        ? { error: { message, type: openAiErrorType(status), param: null, code: null } }
        : { type: 'error', error: { type: anthropicErrorType(status), message } };
    json(res, status, body, headers);
  }

  private sendGarbage(res: ServerResponse, format: Format): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (format === 'openai') {
      res.write('data: {"id":"chatcmpl-garbage","choices":[{"index":0,"delta":{"content":"he\n\n');
      res.write('data: this is not json\n\n');
    } else {
      res.write('event: message_start\ndata: {"type":"message_start","message":{\n\n');
      res.write('event: content_block_delta\ndata: not json either\n\n');
    }
    res.end();
  }

  private sendJson(res: ServerResponse, format: Format, turn: FakeTurn, body: any): void {
    json(res, 200, format === 'openai' ? openAiCompletion(turn, body) : anthropicMessage(turn, body));
  }

  /** Paced writing to one response that stops quietly once the client or the server has gone. */
  private stream(res: ServerResponse, turn: FakeTurn): PacedStream {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    let sent = 0;
    let wake: (() => void) | null = null;
    res.once('close', () => wake?.());
    const alive = () => !this.closed && !res.destroyed && !res.writableEnded;
    const wait = (ms?: number) =>
      new Promise<void>((resolve) => {
        if (!ms || ms <= 0 || !alive()) return resolve();
        const t = setTimeout(() => {
          this.timers.delete(t);
          wake = null;
          resolve();
        }, ms);
        this.timers.add(t);
        wake = () => {
          clearTimeout(t);
          this.timers.delete(t);
          wake = null;
          resolve();
        };
      });
    const write = (data: string) => {
      if (!alive()) return false;
      res.write(data);
      return true;
    };
    return {
      wait,
      write,
      end: () => alive() && res.end(),
      /** a content chunk: paced by tokenIntervalMs, counted for dropAfter */
      content: async (data: string) => {
        if (sent > 0) await wait(turn.tokenIntervalMs);
        if (!alive()) return false;
        if (turn.dropAfter !== undefined && sent >= turn.dropAfter) {
          // FIN after what was written, without the chunked terminator: a response cut short
          const socket = res.socket;
          socket?.end();
          setTimeout(() => socket?.destroy(), 50).unref();
          return false;
        }
        sent++;
        return write(data);
      },
    };
  }
}

// ---------------------------------------------------------------------------------------------

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Reads an async stream to its end; returns what arrived and what it threw (if anything). For tests. */
export async function drain<T>(source: AsyncIterable<T>): Promise<{ events: T[]; error: unknown; ms: number }> {
  const started = Date.now();
  const events: T[] = [];
  try {
    for await (const e of source) events.push(e);
    return { events, error: undefined, ms: Date.now() - started };
  } catch (error) {
    return { events, error, ms: Date.now() - started };
  }
}
