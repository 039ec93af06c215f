/**
 * A fake LLM server for tests and benchmarks, speaking the real wire formats over real HTTP:
 * OpenAI Chat Completions (`POST …/chat/completions`, `data:` chunks, `data: [DONE]`, usage chunk when
 * `stream_options.include_usage`) and Anthropic Messages (`POST …/messages`, `event:`/`data:` pairs
 * from `message_start` to `message_stop`), streaming or not, as the request asks.
 *
 * Each request takes the next scripted turn from the queue, or `defaultTurn` when the queue is empty.
 * Every request is recorded in `requests` (path, parsed body, lower-cased headers).
 */
import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

export interface FakeToolCall {
  name: string;
  /** an object is sent as JSON; a string is sent verbatim (use it for malformed arguments) */
  arguments: object | string;
}

export interface FakeTurn {
  /** streamed split into word-ish chunks */
  text?: string;
  /** streamed as exactly these content chunks (instead of `text`), e.g. an emoji's surrogate pair cut in two */
  chunks?: string[];
  /** streamed as fragments: the name first, then the arguments in 2–3 pieces */
  tool_calls?: FakeToolCall[];
  /** answer with this HTTP status and an error body in the API's format */
  status?: number;
  /** seconds, sent as `retry-after` (429 defaults to 1) */
  retryAfter?: number;
  /** milliseconds, sent as `retry-after-ms` (both SDKs prefer it: keeps retry tests fast) */
  retryAfterMs?: number;
  /** accept the request and never answer (until close) */
  hang?: boolean;
  /** a 200 event stream of malformed data */
  garbage?: boolean;
  /** delay before the first content chunk (headers go out at once) */
  ttftMs?: number;
  /** delay between chunks */
  tokenIntervalMs?: number;
  /** with no `text`: stream this many generated word tokens */
  tokens?: number;
  /** destroy the connection after this many content chunks (a connection lost mid-stream) */
  dropAfter?: number;
  /** the finish/stop reason to report instead of the natural one (OpenAI names: stop|length|tool_calls|content_filter) */
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
}

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

const WORDS = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'do'];

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
      return json(res, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }] });
    }
    const format: Format | null =
      req.method === 'POST' && path.endsWith('/chat/completions') ? 'openai'
      : req.method === 'POST' && path.endsWith('/messages') ? 'anthropic'
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
    return format === 'openai' ? this.streamOpenAi(res, turn, body) : this.streamAnthropic(res, turn, body);
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
    const text = turnText(turn);
    const calls = turn.tool_calls ?? [];
    const inputTokens = estimateTokens(body);
    const outputTokens = splitTokens(text).length + calls.length;
    if (format === 'openai') {
      json(res, 200, {
        id: `chatcmpl-${id()}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body?.model ?? 'fake-model',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text || (calls.length ? null : ''),
              refusal: null,
              ...(calls.length
                ? {
                    tool_calls: calls.map((c) => ({
                      id: `call_${id()}`,
                      type: 'function',
                      function: { name: c.name, arguments: argsText(c) },
                    })),
                  }
                : {}),
            },
            logprobs: null,
            finish_reason: turn.finishReason ?? (calls.length ? 'tool_calls' : 'stop'),
          },
        ],
        usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
      });
    } else {
      const content: object[] = [];
      if (text) content.push({ type: 'text', text });
      for (const c of calls) {
        let input: unknown = c.arguments;
        if (typeof input === 'string') {
          try {
            input = JSON.parse(input);
          } catch {
            input = {};
          }
        }
        content.push({ type: 'tool_use', id: `toolu_${id()}`, name: c.name, input });
      }
      json(res, 200, {
        id: `msg_${id()}`,
        type: 'message',
        role: 'assistant',
        model: body?.model ?? 'fake-model',
        content,
        stop_reason: anthropicStopReason(turn, calls.length > 0),
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: outputTokens },
      });
    }
  }

  private async streamOpenAi(res: ServerResponse, turn: FakeTurn, body: any): Promise<void> {
    const s = this.stream(res, turn);
    const base = { id: `chatcmpl-${id()}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body?.model ?? 'fake-model', system_fingerprint: null };
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;

    const tokens = turn.chunks ?? splitTokens(turnText(turn));
    const calls = turn.tool_calls ?? [];
    let first = true;
    const role = (): object => {
      if (!first) return {};
      first = false;
      return { role: 'assistant' };
    };
    await s.wait(turn.ttftMs);
    for (const t of tokens) {
      if (!(await s.content(chunk({ ...role(), content: t })))) return;
    }
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i];
      const head = { index: i, id: `call_${id()}`, type: 'function', function: { name: c.name, arguments: '' } };
      if (!(await s.content(chunk({ ...role(), tool_calls: [head] })))) return;
      for (const piece of splitArgs(argsText(c))) {
        if (!(await s.content(chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] })))) return;
      }
    }
    if (first && !(await s.content(chunk({ role: 'assistant', content: '' })))) return;
    const finish = turn.finishReason ?? (calls.length ? 'tool_calls' : 'stop');
    if (!s.write(chunk({}, finish))) return;
    if (body?.stream_options?.include_usage) {
      const input = estimateTokens(body);
      const output = tokens.length + calls.length;
      s.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } })}\n\n`);
    }
    s.write('data: [DONE]\n\n');
    s.end();
  }

  private async streamAnthropic(res: ServerResponse, turn: FakeTurn, body: any): Promise<void> {
    const s = this.stream(res, turn);
    const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const tokens = turn.chunks ?? splitTokens(turnText(turn));
    const calls = turn.tool_calls ?? [];
    const input = estimateTokens(body);
    s.write(
      ev('message_start', {
        message: {
          id: `msg_${id()}`,
          type: 'message',
          role: 'assistant',
          model: body?.model ?? 'fake-model',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
        },
      }),
    );
    s.write(ev('ping', {}));
    await s.wait(turn.ttftMs);
    let index = 0;
    if (tokens.length) {
      s.write(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const t of tokens) {
        if (!(await s.content(ev('content_block_delta', { index, delta: { type: 'text_delta', text: t } })))) return;
      }
      s.write(ev('content_block_stop', { index }));
      index++;
    }
    for (const c of calls) {
      const block = { type: 'tool_use', id: `toolu_${id()}`, name: c.name, input: {} };
      if (!(await s.content(ev('content_block_start', { index, content_block: block })))) return;
      s.write(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }));
      for (const piece of splitArgs(argsText(c))) {
        if (!(await s.content(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } })))) return;
      }
      s.write(ev('content_block_stop', { index }));
      index++;
    }
    s.write(
      ev('message_delta', {
        delta: { stop_reason: anthropicStopReason(turn, calls.length > 0), stop_sequence: null },
        usage: { output_tokens: tokens.length + calls.length },
      }),
    );
    s.write(ev('message_stop', {}));
    s.end();
  }

  /** Paced writing to one response that stops quietly once the client or the server has gone. */
  private stream(res: ServerResponse, turn: FakeTurn) {
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

function id(): string {
  return randomBytes(8).toString('hex');
}

function turnText(turn: FakeTurn): string {
  if (turn.chunks) return turn.chunks.join('');
  if (turn.text !== undefined) return turn.text;
  if (turn.tokens && turn.tokens > 0) {
    return Array.from({ length: turn.tokens }, (_, i) => WORDS[i % WORDS.length]).join(' ');
  }
  return '';
}

/** "Hello big world" → ["Hello ", "big ", "world"]; joining the pieces gives the text back. */
export function splitTokens(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function argsText(c: FakeToolCall): string {
  return typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
}

/** Arguments in 2–3 pieces (1 when too short to split). */
function splitArgs(s: string): string[] {
  if (s.length < 2) return s ? [s] : [];
  const n = s.length >= 6 ? 3 : 2;
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(s.slice(Math.floor((i * s.length) / n), Math.floor(((i + 1) * s.length) / n)));
  return out;
}

function estimateTokens(body: any): number {
  const text = JSON.stringify({ system: body?.system, messages: body?.messages ?? [] });
  return Math.max(1, Math.ceil(text.length / 4));
}

function anthropicStopReason(turn: FakeTurn, hasCalls: boolean): string {
  switch (turn.finishReason) {
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    case 'tool_calls':
      return 'tool_use';
    case 'stop':
      return 'end_turn';
    default:
      return hasCalls ? 'tool_use' : 'end_turn';
  }
}

function openAiErrorType(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status === 401) return 'invalid_request_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return 'api_error';
  }
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
