/**
 * The one interface every model provider implements.
 *
 * A provider turns one model call into an async stream of `ProviderEvent`s: text deltas as they arrive,
 * then — once the response is complete — every tool call (arguments assembled and parsed), the usage,
 * and `finish`. Failures are thrown as `ProviderError` with a code the runtime turns into an `error`
 * event. Nothing here knows about HTTP routes, Nest or the database. The per-request plumbing the
 * SDK-based providers share is in provider-call.ts.
 */

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
  'provider_timeout' | 'provider_http' | 'provider_protocol' | 'provider_refused' | 'provider_aborted';

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
