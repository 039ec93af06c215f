/**
 * `vendor_b`: the Anthropic Messages API on `@anthropic-ai/sdk`, streaming with tools.
 *
 * Mapping: the system prompt is the top-level `system`; an assistant turn's tool calls become
 * `tool_use` blocks; tool results become `tool_result` blocks in a user message (consecutive results
 * share one message). Tool arguments arrive as `input_json_delta` fragments and are parsed once the
 * stream is complete; usage comes from `message_start` (input) and `message_delta` (output).
 * `max_tokens` is mandatory in this API (default 4096). `temperature` is not sent: the SDK speaks API
 * version 2026-10-21, which refuses sampling parameters (temperature/top_p/top_k) with a 400.
 *
 * Like the OpenAI provider: SDK retries only before the stream opens, a client per call, and
 * credentials always explicit — the SDK never reads ANTHROPIC_* variables or local credential files.
 */
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import {
  ChatMessage,
  FinishReason,
  parseToolArguments,
  Provider,
  ProviderEvent,
  ProviderRequest,
  ToolSpec,
} from './provider';
import { callScopedFetch, currentCall, DEFAULT_MAX_RETRIES, ProviderCall } from './provider-call';

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam;
type StreamEvent = Anthropic.Messages.RawMessageStreamEvent;
type CreateParams = Anthropic.Messages.MessageCreateParamsStreaming;

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

const SDK_ERRORS = { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError };

/** The SDK client without its ambient credential chain (profiles, config files): auth is what we pass, or none. */
class ExplicitAnthropic extends Anthropic {
  protected override _shouldResolveDefaultCredentials(): boolean {
    return false;
  }
}

export interface AnthropicProviderOptions {
  name?: string;
  baseURL?: string;
  /** null/empty: send no credentials (a proxy that adds its own) */
  apiKey?: string | null;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  maxRetries?: number;
  fetch?: typeof fetch;
}

export class AnthropicProvider implements Provider {
  readonly name: string;

  private sdk: ExplicitAnthropic | null = null;

  constructor(private readonly opts: AnthropicProviderOptions = {}) {
    this.name = opts.name ?? 'vendor_b';
  }

  /** One SDK client per provider; per-call state reaches its fetch through `currentCall`. */
  private client(): ExplicitAnthropic {
    if (this.sdk) return this.sdk;
    const key = this.opts.apiKey || null;
    this.sdk = new ExplicitAnthropic({
      baseURL: this.opts.baseURL || ANTHROPIC_BASE_URL,
      apiKey: key,
      authToken: null,
      defaultHeaders: key ? undefined : { Authorization: null, 'X-Api-Key': null },
      maxRetries: this.opts.maxRetries ?? DEFAULT_MAX_RETRIES,
      fetch: callScopedFetch(this.opts.fetch ?? globalThis.fetch),
      fetchOptions: { redirect: 'manual' }, // never follow a redirect (policyFetch enforces it too)
      logLevel: 'off',
    });
    return this.sdk;
  }

  async *stream(req: ProviderRequest): AsyncGenerator<ProviderEvent> {
    const call = new ProviderCall(this.name, {
      signal: req.signal,
      timeoutMs: this.opts.timeoutMs,
      idleTimeoutMs: this.opts.idleTimeoutMs,
    });
    try {
      const client = this.client();
      let stream: AsyncIterable<StreamEvent>;
      try {
        stream = await call.race(
          currentCall.run(call, () =>
            client.messages.create(toAnthropicBody(req), { signal: call.signal, timeout: call.attemptTimeoutMs }),
          ),
        );
      } catch (err) {
        throw call.fail(err, SDK_ERRORS);
      }

      const tools = new Map<number, { id: string; name: string; json: string; input: unknown }>();
      let inputTokens = 0;
      let outputTokens = 0;
      let stopReason: string | null = null;
      let stopped = false;

      try {
        for await (const ev of call.chunks(stream)) {
          switch (ev.type) {
            case 'message_start': {
              const u = ev.message.usage;
              inputTokens =
                (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
              outputTokens = u.output_tokens ?? 0;
              break;
            }
            case 'content_block_start': {
              const b = ev.content_block;
              if (b.type === 'tool_use') tools.set(ev.index, { id: b.id, name: b.name, json: '', input: b.input });
              else if (b.type === 'text' && b.text) yield { type: 'text', delta: b.text };
              break;
            }
            case 'content_block_delta': {
              const d = ev.delta;
              if (d.type === 'text_delta' && d.text) yield { type: 'text', delta: d.text };
              else if (d.type === 'input_json_delta') {
                const t = tools.get(ev.index);
                if (t) t.json += d.partial_json;
              }
              break;
            }
            case 'message_delta': {
              if (ev.delta.stop_reason) stopReason = ev.delta.stop_reason;
              const u = ev.usage;
              if (typeof u?.output_tokens === 'number') outputTokens = u.output_tokens;
              if (typeof u?.input_tokens === 'number') {
                const cached = (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
                inputTokens = Math.max(inputTokens, u.input_tokens + cached);
              }
              break;
            }
            case 'message_stop':
              stopped = true;
              break;
            default:
              break; // content_block_stop, and event types newer than this code
          }
        }
      } catch (err) {
        throw call.fail(err, SDK_ERRORS);
      }
      if (!stopped) throw call.incomplete('message_stop');

      const ordered = [...tools.entries()].sort((a, b) => a[0] - b[0]);
      for (const [, t] of ordered) {
        const parsed =
          t.json === '' && t.input && typeof t.input === 'object' && Object.keys(t.input).length
            ? { arguments: t.input as Record<string, unknown> }
            : parseToolArguments(t.json);
        yield { type: 'tool_call', call: { id: t.id, name: t.name, ...parsed } };
      }
      yield { type: 'usage', input_tokens: inputTokens, output_tokens: outputTokens };
      yield { type: 'finish', reason: mapStopReason(stopReason, ordered.length > 0) };
    } finally {
      call.close();
    }
  }
}

export function toAnthropicBody(req: ProviderRequest): CreateParams {
  const body: CreateParams = {
    model: req.model,
    max_tokens: req.maxTokens && req.maxTokens > 0 ? req.maxTokens : DEFAULT_ANTHROPIC_MAX_TOKENS,
    messages: toAnthropicMessages(req.messages),
    stream: true,
  };
  if (req.system) body.system = req.system;
  if (req.tools.length) body.tools = req.tools.map(toAnthropicTool);
  // No `temperature`: API version 2026-10-21 (what this SDK sends) rejects sampling parameters with a 400.
  return body;
}

export function toAnthropicMessages(messages: ChatMessage[]): MessageParam[] {
  const out: Array<{ role: 'user' | 'assistant'; content: ContentBlockParam[] }> = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (!blocks.length) return;
    const last = out[out.length - 1];
    // The API wants alternating turns: same-role neighbours (e.g. several tool results) share one message.
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'user') {
      push('user', m.content ? [{ type: 'text', text: m.content }] : []);
    } else if (m.role === 'tool') {
      push('user', [
        {
          type: 'tool_result',
          tool_use_id: m.tool_call_id ?? '',
          ...(m.content ? { content: m.content } : {}),
        },
      ]);
    } else {
      const blocks: ContentBlockParam[] = [];
      if (m.content.trim()) blocks.push({ type: 'text', text: m.content });
      for (const c of m.tool_calls ?? [])
        blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments ?? {} });
      push('assistant', blocks);
    }
  }
  return out;
}

export function toAnthropicTool(t: ToolSpec): Anthropic.Messages.Tool {
  return {
    name: t.name,
    description: t.description,
    input_schema: t.parameters as Anthropic.Messages.Tool.InputSchema,
  };
}

function mapStopReason(reason: string | null, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'error';
    default:
      return hasToolCalls ? 'tool_calls' : 'stop';
  }
}
