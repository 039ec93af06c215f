// FakeLlm's OpenAI Chat Completions answers: a complete completion, `data:` chunks ending with
// `data: [DONE]` (and a usage chunk when `stream_options.include_usage`), and the error body.
import {
  argsText,
  estimateTokens,
  id,
  splitArgs,
  splitTokens,
  turnText,
  type FakeTurn,
  type PacedStream,
} from './fake-llm-turn';

/** A complete (non-streaming) Chat Completions answer. */
export function openAiCompletion(turn: FakeTurn, body: any): object {
  const text = turnText(turn);
  const calls = turn.tool_calls ?? [];
  const inputTokens = estimateTokens(body);
  const outputTokens = splitTokens(text).length + calls.length;
  return {
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
  };
}

/** Streams a turn as Chat Completions chunks, ending with `data: [DONE]`. */
export async function streamOpenAi(s: PacedStream, turn: FakeTurn, body: any): Promise<void> {
  const base = {
    id: `chatcmpl-${id()}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: body?.model ?? 'fake-model',
    system_fingerprint: null,
  };
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
    s.write(
      `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } })}\n\n`,
    );
  }
  s.write('data: [DONE]\n\n');
  s.end();
}

export function openAiErrorType(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status === 401) return 'invalid_request_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}
