// FakeLlm's Anthropic Messages answers: a complete message, `event:`/`data:` pairs from
// `message_start` to `message_stop`, and the error body.
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

/** A complete (non-streaming) Messages answer. */
export function anthropicMessage(turn: FakeTurn, body: any): object {
  const text = turnText(turn);
  const calls = turn.tool_calls ?? [];
  const inputTokens = estimateTokens(body);
  const outputTokens = splitTokens(text).length + calls.length;
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
  return {
    id: `msg_${id()}`,
    type: 'message',
    role: 'assistant',
    model: body?.model ?? 'fake-model',
    content,
    stop_reason: anthropicStopReason(turn, calls.length > 0),
    stop_sequence: null,
    usage: { input_tokens: inputTokens, output_tokens: outputTokens },
  };
}

/** Streams a turn as Messages events, from message_start to message_stop. */
export async function streamAnthropic(s: PacedStream, turn: FakeTurn, body: any): Promise<void> {
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
      if (
        !(await s.content(
          ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }),
        ))
      )
        return;
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

export function anthropicErrorType(status: number): string {
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
