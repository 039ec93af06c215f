// What a scripted FakeLlm turn is, and how one becomes the tokens, tool-call fragments and usage both
// wire formats send (fake-openai-wire.ts, fake-anthropic-wire.ts).
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

const WORDS = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'do'];

/** How a wire format writes one streamed answer (FakeLlm paces it and stops it when the client goes). */
export interface PacedStream {
  /** waits `ms` (or not at all), cut short when the response closes */
  wait(ms?: number): Promise<void>;
  /** writes at once; false once the client or the server has gone */
  write(data: string): boolean;
  end(): unknown;
  /** a content chunk: paced by tokenIntervalMs, counted for dropAfter; false when the stream stopped */
  content(data: string): Promise<boolean>;
}

export function id(): string {
  return randomBytes(8).toString('hex');
}

export function turnText(turn: FakeTurn): string {
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

export function argsText(c: FakeToolCall): string {
  return typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
}

/** Arguments in 2–3 pieces (1 when too short to split). */
export function splitArgs(s: string): string[] {
  if (s.length < 2) return s ? [s] : [];
  const n = s.length >= 6 ? 3 : 2;
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(s.slice(Math.floor((i * s.length) / n), Math.floor(((i + 1) * s.length) / n)));
  return out;
}

export function estimateTokens(body: any): number {
  const text = JSON.stringify({ system: body?.system, messages: body?.messages ?? [] });
  return Math.max(1, Math.ceil(text.length / 4));
}
