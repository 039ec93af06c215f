import assert from 'node:assert/strict';
import { drain, FakeLlm } from '../../../../test/support/fake-llm';
import { AnthropicProvider, AnthropicProviderOptions } from './anthropic.provider';
import { ChatMessage, ProviderError, ProviderEvent, ProviderRequest, ToolSpec } from './provider';

const TOOLS: ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a workspace file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  { name: 'list_files', description: 'List files', parameters: { type: 'object', properties: {} } },
];

function request(over: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    system: 'You are a test agent.',
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    model: 'claude-test',
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

describe('AnthropicProvider against a fake Anthropic server', () => {
  let fake: FakeLlm;
  const provider = (o: AnthropicProviderOptions = {}) =>
    new AnthropicProvider({ baseURL: fake.anthropicBase, apiKey: 'sk-ant-test', ...o });

  beforeAll(async () => {
    fake = await FakeLlm.start();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  test('streams text, then usage from message_start/message_delta, then finish', async () => {
    fake.enqueue({ text: 'Hello there, world.' });
    const { events, error } = await drain(provider().stream(request({ temperature: 1.5 })));
    assert.equal(error, undefined);
    assert.deepEqual(texts(events), ['Hello ', 'there, ', 'world.']);
    assert.deepEqual(types(events), ['text', 'usage', 'finish']);
    const usage = events.find((e) => e.type === 'usage');
    assert.ok(usage && usage.type === 'usage' && usage.input_tokens > 0 && usage.output_tokens === 3);
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'stop' });

    const { path, body, headers } = fake.requests[0];
    assert.equal(path, '/v1/messages');
    assert.ok(headers['anthropic-version'], 'sends anthropic-version');
    assert.ok(
      headers['x-api-key'] === 'sk-ant-test' || headers.authorization === 'Bearer sk-ant-test',
      'sends the key',
    );
    // max_tokens is required: 4096 by default; temperature is never sent (refused by API 2026-10-21)
    assert.deepEqual(body, {
      model: 'claude-test',
      max_tokens: 4096,
      system: 'You are a test agent.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      stream: true,
    });
  });

  test('uses the model record max_tokens when it has one', async () => {
    fake.enqueue({ text: 'ok' });
    await drain(provider().stream(request({ maxTokens: 123 })));
    assert.equal(fake.requests[0].body.max_tokens, 123);
  });

  test('assembles tool_use input from input_json_delta fragments', async () => {
    fake.enqueue({
      text: 'Looking.',
      tool_calls: [
        { name: 'read_file', arguments: { path: 'docs/prd.md' } },
        { name: 'list_files', arguments: {} },
      ],
    });
    const { events, error } = await drain(provider().stream(request({ tools: TOOLS })));
    assert.equal(error, undefined);
    assert.deepEqual(types(events), ['text', 'tool_call', 'usage', 'finish']);
    const calls = events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []));
    assert.equal(calls.length, 2);
    assert.equal(calls[0].name, 'read_file');
    assert.deepEqual(calls[0].arguments, { path: 'docs/prd.md' });
    assert.match(calls[0].id, /^toolu_/);
    assert.equal(calls[1].name, 'list_files');
    assert.deepEqual(calls[1].arguments, {});
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'tool_calls' });

    assert.deepEqual(fake.requests[0].body.tools, [
      { name: 'read_file', description: 'Read a workspace file', input_schema: TOOLS[0].parameters },
      { name: 'list_files', description: 'List files', input_schema: TOOLS[1].parameters },
    ]);
  });

  test('unparsable tool input gives {} and argumentsError', async () => {
    fake.enqueue({ tool_calls: [{ name: 'read_file', arguments: '{"path": "a' }] });
    const { events, error } = await drain(provider().stream(request({ tools: TOOLS })));
    assert.equal(error, undefined);
    const call = events.find((e) => e.type === 'tool_call');
    assert.ok(call && call.type === 'tool_call');
    assert.deepEqual(call.call.arguments, {});
    assert.match(call.call.argumentsError ?? '', /not valid JSON/);
  });

  test('sends a multi-turn conversation: tool_use blocks, consecutive tool results in one user message', async () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Summarise the PRD.' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          { id: 'toolu_1', name: 'read_file', arguments: { path: 'docs/prd.md' } },
          { id: 'toolu_2', name: 'list_files', arguments: {} },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', name: 'read_file', content: '# PRD' },
      { role: 'tool', tool_call_id: 'toolu_2', name: 'list_files', content: 'docs/prd.md' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'toolu_3', name: 'list_files', arguments: {} }] },
      { role: 'tool', tool_call_id: 'toolu_3', content: '' },
      { role: 'assistant', content: 'It is short.' },
      { role: 'user', content: 'Thanks' },
    ];
    fake.enqueue({ text: 'Done.' });
    const { error } = await drain(provider().stream(request({ messages, tools: TOOLS })));
    assert.equal(error, undefined);
    assert.deepEqual(fake.requests[0].body.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Summarise the PRD.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'docs/prd.md' } },
          { type: 'tool_use', id: 'toolu_2', name: 'list_files', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '# PRD' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'docs/prd.md' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_3', name: 'list_files', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_3' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'It is short.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ]);
  });

  test('the SDK retries a 500 at connect time, then streams', async () => {
    fake.enqueue({ status: 500, retryAfterMs: 10 }, { text: 'recovered' });
    const { events, error } = await drain(provider().stream(request()));
    assert.equal(error, undefined);
    assert.deepEqual(texts(events), ['recovered']);
    assert.equal(fake.requests.length, 2);
  });

  test('529 overloaded on every attempt → provider_http with the status and the upstream message', async () => {
    fake.enqueue(...Array.from({ length: 3 }, () => ({ status: 529, retryAfterMs: 5 })));
    const { error } = await drain(provider({ maxRetries: 2 }).stream(request()));
    assertProviderError(error, 'provider_http');
    assert.equal(error.status, 529);
    assert.match(error.message, /HTTP 529: fake 529 error/);
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

  test('a 401 is not retried', async () => {
    fake.enqueue({ status: 401 });
    const { error } = await drain(provider().stream(request()));
    assertProviderError(error, 'provider_http');
    assert.equal(error.status, 401);
    assert.equal(fake.requests.length, 1);
  });

  test('a server that never answers → provider_timeout at the deadline', async () => {
    fake.enqueue({ hang: true }, { hang: true }, { hang: true });
    const { error, ms } = await drain(provider({ timeoutMs: 300 }).stream(request()));
    assertProviderError(error, 'provider_timeout');
    // at the deadline, not at the SDK's own minutes-long timeout (a bound loose enough for a loaded machine)
    assert.ok(ms >= 250 && ms < 10_000, `took ${ms} ms`);
  });

  test('a stream that stalls after message_start → provider_timeout (idle)', async () => {
    fake.enqueue({ text: 'late', ttftMs: 3000 });
    const { error, ms } = await drain(provider({ idleTimeoutMs: 200 }).stream(request()));
    assertProviderError(error, 'provider_timeout');
    assert.match(error.message, /stalled/);
    assert.ok(ms < 10_000, `took ${ms} ms`);
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
  });

  test('abort while waiting → provider_aborted at once', async () => {
    fake.enqueue({ hang: true });
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

  test('no key → neither x-api-key nor Authorization, and no ambient credentials', async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'sk-ant-from-env';
    try {
      fake.enqueue({ text: 'ok' });
      const { error } = await drain(provider({ apiKey: null }).stream(request()));
      assert.equal(error, undefined);
      const h = fake.requests[0].headers;
      assert.equal(h['x-api-key'], undefined);
      assert.equal(h.authorization, undefined);
      assert.ok(!JSON.stringify(h).includes('sk-ant-from-env'));
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  test('stop reasons: max_tokens → length, refusal → error', async () => {
    fake.enqueue({ text: 'cut', finishReason: 'length' }, { text: 'no', finishReason: 'content_filter' });
    const a = await drain(provider().stream(request()));
    assert.deepEqual(a.events.at(-1), { type: 'finish', reason: 'length' });
    const b = await drain(provider().stream(request()));
    assert.deepEqual(b.events.at(-1), { type: 'finish', reason: 'error' });
  });
});
