import assert from 'node:assert/strict';
import { drain, FakeLlm } from '../../../../test/support/fake-llm';
import { OpenAiProvider, OpenAiProviderOptions } from './openai.provider';
import { ChatMessage, ProviderError, ProviderEvent, ProviderRequest, ToolSpec } from './provider';

const TOOLS: ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a workspace file',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, limit: { type: 'integer' } },
      required: ['path'],
    },
  },
  { name: 'list_files', description: 'List files', parameters: { type: 'object', properties: {} } },
];

function request(over: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    system: 'You are a test agent.',
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    model: 'gpt-test',
    signal: new AbortController().signal,
    ...over,
  };
}

const texts = (events: ProviderEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.delta] : []));
const types = (events: ProviderEvent[]) => [...new Set(events.map((e) => e.type))];

function assertProviderError(err: unknown, code: ProviderError['code']): asserts err is ProviderError {
  assert.ok(err instanceof ProviderError, `expected ProviderError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
}

describe('OpenAiProvider against a fake OpenAI server', () => {
  let fake: FakeLlm;
  const provider = (o: OpenAiProviderOptions = {}) =>
    new OpenAiProvider({ baseURL: fake.openaiBase, apiKey: 'sk-test', ...o });

  beforeAll(async () => {
    fake = await FakeLlm.start();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  test('streams text as word-sized deltas, then usage and finish', async () => {
    fake.enqueue({ text: 'Hello there, world.' });
    const { events, error } = await drain(provider().stream(request({ temperature: 0.2, maxTokens: 50 })));
    assert.equal(error, undefined);
    assert.deepEqual(texts(events), ['Hello ', 'there, ', 'world.']);
    assert.deepEqual(types(events), ['text', 'usage', 'finish']);
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'stop' });
    const usage = events.find((e) => e.type === 'usage');
    assert.ok(usage && usage.type === 'usage' && usage.output_tokens === 3 && usage.input_tokens > 0);

    assert.equal(fake.requests.length, 1);
    const { path, body, headers } = fake.requests[0];
    assert.equal(path, '/v1/chat/completions');
    assert.equal(headers.authorization, 'Bearer sk-test');
    assert.deepEqual(body, {
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You are a test agent.' },
        { role: 'user', content: 'hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      max_tokens: 50,
    });
  });

  test('assembles a streamed tool call from fragments and emits it complete, before finish', async () => {
    fake.enqueue({
      text: 'Let me look.',
      tool_calls: [
        { name: 'read_file', arguments: { path: 'docs/prd.md', limit: 10 } },
        { name: 'list_files', arguments: {} },
      ],
    });
    const { events, error } = await drain(provider().stream(request({ tools: TOOLS })));
    assert.equal(error, undefined);
    assert.deepEqual(types(events), ['text', 'tool_call', 'usage', 'finish']);
    const calls = events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []));
    assert.equal(calls.length, 2);
    assert.equal(calls[0].name, 'read_file');
    assert.deepEqual(calls[0].arguments, { path: 'docs/prd.md', limit: 10 });
    assert.equal(calls[0].argumentsError, undefined);
    assert.match(calls[0].id, /^call_/);
    assert.equal(calls[1].name, 'list_files');
    assert.deepEqual(calls[1].arguments, {});
    assert.notEqual(calls[0].id, calls[1].id);
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'tool_calls' });

    assert.deepEqual(fake.requests[0].body.tools, [
      {
        type: 'function',
        function: { name: 'read_file', description: 'Read a workspace file', parameters: TOOLS[0].parameters },
      },
      {
        type: 'function',
        function: { name: 'list_files', description: 'List files', parameters: TOOLS[1].parameters },
      },
    ]);
  });

  test('unparsable tool arguments give {} and argumentsError', async () => {
    fake.enqueue({ tool_calls: [{ name: 'write_file', arguments: '{"path": "a.md", "content": ' }] });
    const { events, error } = await drain(provider().stream(request({ tools: TOOLS })));
    assert.equal(error, undefined);
    const call = events.find((e) => e.type === 'tool_call');
    assert.ok(call && call.type === 'tool_call');
    assert.equal(call.call.name, 'write_file');
    assert.deepEqual(call.call.arguments, {});
    assert.match(call.call.argumentsError ?? '', /not valid JSON/);
  });

  test('sends a multi-turn conversation with tool results in the OpenAI wire shape', async () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Summarise the PRD.' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'call_1', name: 'read_file', arguments: { path: 'docs/prd.md' } },
          { id: 'call_2', name: 'list_files', arguments: {} },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', name: 'read_file', content: '# PRD' },
      { role: 'tool', tool_call_id: 'call_2', name: 'list_files', content: 'docs/prd.md' },
      { role: 'assistant', content: 'It is short.' },
      { role: 'user', content: 'Thanks' },
    ];
    fake.enqueue({ text: 'Done.' });
    const { error } = await drain(provider().stream(request({ messages, tools: TOOLS })));
    assert.equal(error, undefined);
    assert.deepEqual(fake.requests[0].body.messages, [
      { role: 'system', content: 'You are a test agent.' },
      { role: 'user', content: 'Summarise the PRD.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"docs/prd.md"}' } },
          { id: 'call_2', type: 'function', function: { name: 'list_files', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '# PRD' },
      { role: 'tool', tool_call_id: 'call_2', content: 'docs/prd.md' },
      { role: 'assistant', content: 'It is short.' },
      { role: 'user', content: 'Thanks' },
    ]);
  });

  test('the SDK retries a 500 at connect time, then streams', async () => {
    fake.enqueue({ status: 500, retryAfterMs: 10 }, { text: 'recovered' });
    const { events, error } = await drain(provider().stream(request()));
    assert.equal(error, undefined);
    assert.deepEqual(texts(events), ['recovered']);
    assert.equal(fake.requests.length, 2);
  });

  test('a 429 with retry-after is retried', async () => {
    fake.enqueue({ status: 429, retryAfter: 0, retryAfterMs: 20 }, { text: 'ok' });
    const { error } = await drain(provider().stream(request()));
    assert.equal(error, undefined);
    assert.equal(fake.requests.length, 2);
  });

  test('500 on every attempt → provider_http with the status, after maxRetries', async () => {
    fake.enqueue(...Array.from({ length: 3 }, () => ({ status: 500, retryAfterMs: 5 })));
    const { error } = await drain(provider({ maxRetries: 2 }).stream(request()));
    assertProviderError(error, 'provider_http');
    assert.equal(error.status, 500);
    assert.match(error.message, /HTTP 500: fake 500 error/);
    assert.equal(fake.requests.length, 3);
  });

  test('a redirect is never followed, even without the host-policy fetch', async () => {
    fake.enqueue({ status: 302 }, { text: 'SHOULD NOT BE USED' });
    const { error } = await drain(provider().stream(request()));
    assertProviderError(error, 'provider_http');
    assert.equal(error.status, 302);
    assert.match(error.message, /redirects are not followed/);
    assert.equal(fake.requests.length, 1);
  });

  test('a 400 is not retried', async () => {
    fake.enqueue({ status: 400 });
    const { error } = await drain(provider().stream(request()));
    assertProviderError(error, 'provider_http');
    assert.equal(error.status, 400);
    assert.equal(fake.requests.length, 1);
  });

  test('a Retry-After longer than we wait fails at once with the status and the delay', async () => {
    fake.enqueue({ status: 429, retryAfter: 3600 });
    const { error, ms } = await drain(provider().stream(request()));
    assertProviderError(error, 'provider_http');
    assert.equal(error.status, 429);
    assert.equal(error.retryAfterMs, 3_600_000);
    assert.equal(fake.requests.length, 1);
    assert.ok(ms < 1000, `took ${ms} ms`);
  });

  test('a server that never answers → provider_timeout at the deadline', async () => {
    fake.enqueue({ hang: true }, { hang: true }, { hang: true });
    const { error, ms } = await drain(provider({ timeoutMs: 300 }).stream(request()));
    assertProviderError(error, 'provider_timeout');
    // at the deadline, not at the SDK's own minutes-long timeout (a bound loose enough for a loaded machine)
    assert.ok(ms >= 250 && ms < 10_000, `took ${ms} ms`);
  });

  test('no response headers within the idle timeout → provider_timeout (SDK attempt timeout)', async () => {
    fake.enqueue({ hang: true });
    const { error, ms } = await drain(provider({ idleTimeoutMs: 200, maxRetries: 0 }).stream(request()));
    assertProviderError(error, 'provider_timeout');
    assert.ok(ms < 10_000, `took ${ms} ms`);
  });

  test('a stream that stalls mid-way → provider_timeout after the idle timeout, text so far delivered', async () => {
    fake.enqueue({ text: 'one two three', tokenIntervalMs: 2000 });
    const { events, error, ms } = await drain(provider({ idleTimeoutMs: 200 }).stream(request()));
    assertProviderError(error, 'provider_timeout');
    assert.match(error.message, /stalled/);
    assert.deepEqual(texts(events), ['one ']);
    assert.ok(ms < 10_000, `took ${ms} ms`);
    assert.equal(fake.requests.length, 1);
  });

  test('a malformed stream → provider_protocol', async () => {
    fake.enqueue({ garbage: true });
    const { error } = await drain(provider().stream(request()));
    assertProviderError(error, 'provider_protocol');
  });

  test('a connection lost after tokens → provider_protocol, never retried', async () => {
    fake.enqueue({ text: 'a b c d e f', dropAfter: 2 }, { text: 'SHOULD NOT BE USED' });
    const { events, error } = await drain(provider().stream(request()));
    assertProviderError(error, 'provider_protocol');
    assert.deepEqual(texts(events), ['a ', 'b ']);
    assert.equal(fake.requests.length, 1);
    assert.equal(fake.pending, 1);
  });

  test('abort while waiting for the server → provider_aborted at once', async () => {
    fake.enqueue({ hang: true });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const { error, ms } = await drain(provider().stream(request({ signal: ac.signal })));
    assertProviderError(error, 'provider_aborted');
    assert.ok(ms < 500, `took ${ms} ms`);
  });

  test('abort during the retry backoff → provider_aborted at once (the SDK sleep is not abortable)', async () => {
    fake.enqueue({ status: 503, retryAfterMs: 1500 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const { error, ms } = await drain(provider().stream(request({ signal: ac.signal })));
    assertProviderError(error, 'provider_aborted');
    assert.ok(ms < 500, `took ${ms} ms`);
  });

  test('abort mid-stream → provider_aborted, quickly', async () => {
    fake.enqueue({ text: 'one two three four', tokenIntervalMs: 300 });
    const ac = new AbortController();
    const started = Date.now();
    const events: ProviderEvent[] = [];
    let error: unknown;
    try {
      for await (const e of provider().stream(request({ signal: ac.signal }))) {
        events.push(e);
        if (events.length === 1) ac.abort();
      }
    } catch (err) {
      error = err;
    }
    assertProviderError(error, 'provider_aborted');
    assert.deepEqual(texts(events), ['one ']);
    assert.ok(Date.now() - started < 500);
  });

  test('an already-aborted signal never reaches the server', async () => {
    const ac = new AbortController();
    ac.abort();
    const { error } = await drain(provider().stream(request({ signal: ac.signal })));
    assertProviderError(error, 'provider_aborted');
    assert.equal(fake.requests.length, 0);
  });

  test('a consumer that stops early closes the HTTP stream', async () => {
    fake.enqueue({ text: 'one two three four five', tokenIntervalMs: 50 });
    for await (const e of provider().stream(request())) {
      if (e.type === 'text') break;
    }
    // the next call works and the fake sees the next request normally
    fake.enqueue({ text: 'next' });
    const { events, error } = await drain(provider().stream(request()));
    assert.equal(error, undefined);
    assert.deepEqual(texts(events), ['next']);
  });

  test('no key → no Authorization header (local servers)', async () => {
    fake.enqueue({ text: 'ok' });
    const { error } = await drain(provider({ apiKey: null, name: 'custom' }).stream(request()));
    assert.equal(error, undefined);
    assert.equal(fake.requests[0].headers.authorization, undefined);
  });

  test('finish reasons: length, and max_completion_tokens when asked', async () => {
    fake.enqueue({ text: 'cut', finishReason: 'length' });
    const { events } = await drain(
      provider({ maxTokensField: 'max_completion_tokens' }).stream(request({ maxTokens: 5 })),
    );
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'length' });
    assert.equal(fake.requests[0].body.max_completion_tokens, 5);
    assert.equal(fake.requests[0].body.max_tokens, undefined);
  });

  test('the default turn answers when nothing is queued', async () => {
    const { events } = await drain(provider().stream(request()));
    assert.deepEqual(texts(events), ['ok']);
  });
});
