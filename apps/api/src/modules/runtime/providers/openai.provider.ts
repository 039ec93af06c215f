/**
 * `vendor_a` (the OpenAI API) and `custom` (any OpenAI-compatible server: Ollama, vLLM, llama.cpp,
 * LM Studio, …) on the official `openai` SDK, streaming Chat Completions with tools.
 *
 * The SDK retries 408/409/429/5xx and connection failures (maxRetries, exponential backoff, Retry-After)
 * while it waits for response headers; once a stream is open nothing is retried, so no token is ever
 * emitted twice. A client is built per call: cheap, and it keeps each call's fetch wrapper separate.
 * Credentials and hosts are always passed explicitly so the SDK never falls back to OPENAI_* variables.
 */
import OpenAI from 'openai';
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

type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
type MessageParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type FunctionTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAiProviderOptions {
  /** the name reported in events and messages */
  name?: 'vendor_a' | 'custom';
  baseURL?: string;
  /** null/empty: send no Authorization header (local servers) */
  apiKey?: string | null;
  /** whole call, retries included (default 120 s) */
  timeoutMs?: number;
  /** longest silence: per attempt before headers, and between chunks (default 60 s) */
  idleTimeoutMs?: number;
  /** SDK retries before the response starts (default 2) */
  maxRetries?: number;
  fetch?: typeof fetch;
  /** OpenAI's current models want `max_completion_tokens`; compatible servers know `max_tokens` */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

export class OpenAiProvider implements Provider {
  readonly name: 'vendor_a' | 'custom';

  private sdk: OpenAI | null = null;

  /**
   * One SDK client per provider (the runtime keeps providers per model), so a call costs no client
   * construction. What belongs to a single call (deadline, idle timer, refusal handling) reaches the
   * client's fetch through `currentCall`.
   */
  private client(): OpenAI {
    if (this.sdk) return this.sdk;
    const key = this.opts.apiKey || null;
    const inner = this.opts.fetch ?? globalThis.fetch;
    this.sdk = new OpenAI({
      baseURL: this.opts.baseURL || OPENAI_BASE_URL,
      apiKey: key ?? 'unused', // the SDK insists on one; the header is removed below
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      defaultHeaders: key ? undefined : { Authorization: null },
      maxRetries: this.opts.maxRetries ?? DEFAULT_MAX_RETRIES,
      fetch: callScopedFetch(inner),
      fetchOptions: { redirect: 'manual' }, // never follow a redirect (policyFetch enforces it too)
      logLevel: 'off',
    });
    return this.sdk;
  }

  constructor(private readonly opts: OpenAiProviderOptions = {}) {
    this.name = opts.name ?? 'vendor_a';
  }

  async *stream(req: ProviderRequest): AsyncGenerator<ProviderEvent> {
    const call = new ProviderCall(this.name, {
      signal: req.signal,
      timeoutMs: this.opts.timeoutMs,
      idleTimeoutMs: this.opts.idleTimeoutMs,
    });
    try {
      const client = this.client();
      let stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
      try {
        stream = await call.race(
          currentCall.run(call, () =>
            client.chat.completions.create(this.body(req), { signal: call.signal, timeout: call.attemptTimeoutMs }),
          ),
        );
      } catch (err) {
        throw call.fail(err, OpenAI);
      }

      const calls = new Map<number, { id: string; name: string; args: string }>();
      let lastIndex = -1;
      let finish: string | null = null;
      let usage: { input_tokens: number; output_tokens: number } | null = null;

      try {
        for await (const chunk of call.chunks(stream)) {
          if (chunk.usage) {
            usage = { input_tokens: chunk.usage.prompt_tokens ?? 0, output_tokens: chunk.usage.completion_tokens ?? 0 };
          }
          for (const choice of chunk.choices ?? []) {
            if ((choice.index ?? 0) !== 0) continue;
            const delta = choice.delta ?? {};
            if (typeof delta.content === 'string' && delta.content !== '') yield { type: 'text', delta: delta.content };
            for (const frag of delta.tool_calls ?? []) {
              // Some compatible servers omit `index` and send each call whole.
              const index =
                typeof frag.index === 'number' ? frag.index : frag.id || lastIndex < 0 ? lastIndex + 1 : lastIndex;
              lastIndex = Math.max(lastIndex, index);
              let c = calls.get(index);
              if (!c) calls.set(index, (c = { id: '', name: '', args: '' }));
              if (frag.id) c.id = frag.id;
              const name = frag.function?.name;
              if (name && name !== c.name) c.name = c.name ? c.name + name : name;
              if (frag.function?.arguments) c.args += frag.function.arguments;
            }
            if (choice.finish_reason) finish = choice.finish_reason;
          }
        }
      } catch (err) {
        throw call.fail(err, OpenAI);
      }
      if (!finish) throw call.incomplete('the model finished (no finish_reason)');

      const ordered = [...calls.entries()].sort((a, b) => a[0] - b[0]);
      for (const [index, c] of ordered) {
        yield { type: 'tool_call', call: { id: c.id || `call_${index}`, name: c.name, ...parseToolArguments(c.args) } };
      }
      if (usage) yield { type: 'usage', ...usage };
      yield { type: 'finish', reason: mapFinish(finish, ordered.length > 0) };
    } finally {
      call.close();
    }
  }

  private body(req: ProviderRequest): ChatParams {
    const body: ChatParams = {
      model: req.model,
      messages: toOpenAiMessages(req.system, req.messages),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (req.tools.length) body.tools = req.tools.map(toOpenAiTool);
    if (req.temperature !== undefined && req.temperature !== null) body.temperature = req.temperature;
    if (req.maxTokens) body[this.opts.maxTokensField ?? 'max_tokens'] = req.maxTokens;
    return body;
  }
}

export function toOpenAiMessages(system: string, messages: ChatMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  if (system) out.push({ role: 'system', content: system });
  for (const m of messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', content: m.content });
    } else if (m.role === 'tool') {
      out.push({ role: 'tool', tool_call_id: m.tool_call_id ?? '', content: m.content });
    } else if (m.tool_calls?.length) {
      out.push({
        role: 'assistant',
        content: m.content || null,
        tool_calls: m.tool_calls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: JSON.stringify(c.arguments ?? {}) },
        })),
      });
    } else {
      out.push({ role: 'assistant', content: m.content });
    }
  }
  return out;
}

export function toOpenAiTool(t: ToolSpec): FunctionTool {
  return {
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters as Record<string, unknown> },
  };
}

function mapFinish(reason: string, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'error';
    default:
      // Some compatible servers say "stop" even when they return tool calls.
      return hasToolCalls ? 'tool_calls' : 'stop';
  }
}
