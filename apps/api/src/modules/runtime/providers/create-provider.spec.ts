import assert from 'node:assert/strict';
import { drain, FakeLlm } from '../../../../test/support/fake-llm';
import {
  createProvider,
  CreateProviderOptions,
  hostMode,
  isOfficialBase,
  ModelProviderSpec,
  ProviderEnv,
} from './create-provider';
import { ProviderError, ProviderRequest } from './provider';

const SERVER_A = 'sk-server-A-SECRET';
const SERVER_B = 'sk-server-B-SECRET';
const ENV: ProviderEnv = { VENDOR_A_API_KEY: SERVER_A, VENDOR_B_API_KEY: SERVER_B, MODEL_HOSTS: 'any' };

function request(over: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    system: 's',
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    model: '',
    signal: new AbortController().signal,
    ...over,
  };
}

function assertProviderError(err: unknown, code: ProviderError['code']): asserts err is ProviderError {
  assert.ok(err instanceof ProviderError, `expected ProviderError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
}

const noServerKey = (headers: object) => {
  const all = JSON.stringify(headers);
  assert.ok(!all.includes(SERVER_A) && !all.includes(SERVER_B), `a server key leaked: ${all}`);
};

describe('createProvider', () => {
  let fake: FakeLlm;
  /** Transport that records where the SDK wanted to go, then delivers the request to the fake. */
  let wanted: Array<{ url: string; headers: Headers }>;
  const viaFake: CreateProviderOptions = {
    fetch: async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(String(input));
      wanted.push({ url: url.href, headers: new Headers(init?.headers) });
      return fetch(fake.url + url.pathname, init);
    },
    lookup: async () => [{ address: '93.184.216.34', family: 4 }],
  };

  beforeAll(async () => {
    fake = await FakeLlm.start();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.reset();
    wanted = [];
  });

  const run = async (spec: ModelProviderSpec, env: ProviderEnv = ENV, opts?: CreateProviderOptions) => {
    const p = createProvider(spec, env, opts);
    return { name: p.name, ...(await drain(p.stream(request()))) };
  };

  test('vendor_a with a user api_base and no own key: the server key is NOT sent', async () => {
    const r = await run({ provider: 'vendor_a', model_id: 'gpt-x', api_base: fake.openaiBase, api_key: null });
    assert.equal(r.error, undefined);
    assert.equal(r.name, 'vendor_a');
    assert.equal(fake.requests.length, 1);
    assert.equal(fake.requests[0].headers.authorization, undefined);
    noServerKey(fake.requests[0].headers);
    assert.equal(fake.requests[0].body.model, 'gpt-x', 'model_id is the default model');
  });

  test('vendor_a with a user api_base and its own key: the own key is sent', async () => {
    await run({ provider: 'vendor_a', model_id: 'gpt-x', api_base: fake.openaiBase, api_key: 'sk-user-own' });
    assert.equal(fake.requests[0].headers.authorization, 'Bearer sk-user-own');
  });

  test('vendor_b with a user api_base and no own key: the server key is NOT sent', async () => {
    const r = await run({ provider: 'vendor_b', model_id: 'claude-x', api_base: fake.anthropicBase });
    assert.equal(r.error, undefined);
    const h = fake.requests[0].headers;
    assert.equal(h.authorization, undefined);
    assert.equal(h['x-api-key'], undefined);
    noServerKey(h);
  });

  test('vendor_b accepts a base pasted with /v1', async () => {
    const r = await run({ provider: 'vendor_b', model_id: 'claude-x', api_base: fake.url + '/v1/', api_key: 'k' });
    assert.equal(r.error, undefined);
    assert.equal(fake.requests[0].path, '/v1/messages');
  });

  test('custom never uses a server key; sends its own key when it has one', async () => {
    await run({ provider: 'custom', model_id: 'llama', api_base: fake.openaiBase });
    assert.equal(fake.requests[0].headers.authorization, undefined);
    noServerKey(fake.requests[0].headers);
    await run({ provider: 'custom', model_id: 'llama', api_base: fake.openaiBase, api_key: 'local-key' });
    assert.equal(fake.requests[1].headers.authorization, 'Bearer local-key');
    assert.equal(fake.requests[1].body.max_tokens, undefined);
  });

  test('vendor_a on the official endpoint uses the server key (no api_base, or the official one)', async () => {
    for (const api_base of [
      null,
      'https://api.openai.com/v1',
      'https://api.openai.com/v1/',
      'https://API.openai.com',
    ]) {
      wanted = [];
      const r = await run({ provider: 'vendor_a', model_id: 'gpt-x', api_base }, ENV, viaFake);
      assert.equal(r.error, undefined, String(api_base));
      assert.equal(wanted[0].url, 'https://api.openai.com/v1/chat/completions');
      assert.equal(wanted[0].headers.get('authorization'), `Bearer ${SERVER_A}`);
    }
  });

  test('the record key wins over the server key on the official endpoint', async () => {
    await run({ provider: 'vendor_a', model_id: 'gpt-x', api_key: 'sk-own' }, ENV, viaFake);
    assert.equal(wanted[0].headers.get('authorization'), 'Bearer sk-own');
  });

  test('vendor_b on the official endpoint uses the server key', async () => {
    const r = await run({ provider: 'vendor_b', model_id: 'claude-x' }, ENV, viaFake);
    assert.equal(r.error, undefined);
    assert.equal(wanted[0].url, 'https://api.anthropic.com/v1/messages');
    const h = wanted[0].headers;
    assert.ok(h.get('x-api-key') === SERVER_B || h.get('authorization') === `Bearer ${SERVER_B}`);
  });

  test('look-alike official bases get no server key', async () => {
    for (const api_base of [
      'https://api.openai.com.evil.example/v1',
      'http://api.openai.com/v1',
      'https://api.openai.com:8443/v1',
      'https://api.openai.com/v1/proxy',
      'https://api.openai.com/v1?x=1',
      'https://evil.example/api.openai.com/v1',
    ]) {
      wanted = [];
      await run({ provider: 'vendor_a', model_id: 'gpt-x', api_base }, ENV, viaFake);
      assert.equal(wanted.length, 1, api_base);
      assert.equal(wanted[0].headers.get('authorization'), null, api_base);
      noServerKey(Object.fromEntries(wanted[0].headers));
    }
  });

  test('isOfficialBase', () => {
    assert.equal(isOfficialBase('vendor_a', 'https://api.openai.com/v1'), true);
    assert.equal(isOfficialBase('vendor_a', 'https://api.anthropic.com'), false);
    assert.equal(isOfficialBase('vendor_b', 'https://api.anthropic.com/'), true);
    assert.equal(isOfficialBase('vendor_b', 'https://u:p@api.anthropic.com/'), false);
    assert.equal(isOfficialBase('vendor_b', 'nonsense'), false);
  });

  test('official endpoint without any key → provider_refused at creation', () => {
    for (const provider of ['vendor_a', 'vendor_b'] as const) {
      assert.throws(
        () => createProvider({ provider, model_id: 'm' }, { MODEL_HOSTS: 'any' }),
        (err: unknown) => {
          assertProviderError(err, 'provider_refused');
          assert.match(err.message, /No API key/);
          return true;
        },
      );
    }
  });

  test('custom without api_base → provider_refused', () => {
    assert.throws(
      () => createProvider({ provider: 'custom', model_id: 'm' }, ENV),
      (err: unknown) => {
        assertProviderError(err, 'provider_refused');
        return true;
      },
    );
  });

  test('host policy on api_base: metadata always, loopback in public mode', () => {
    assert.throws(
      () => createProvider({ provider: 'custom', model_id: 'm', api_base: 'http://169.254.169.254/v1' }, ENV),
      (err: unknown) => (assertProviderError(err, 'provider_refused'), true),
    );
    assert.throws(
      () => createProvider({ provider: 'custom', model_id: 'm', api_base: fake.openaiBase }, { MODEL_HOSTS: 'public' }),
      (err: unknown) => {
        assertProviderError(err, 'provider_refused');
        assert.match(err.message, /MODEL_HOSTS=public/);
        return true;
      },
    );
  });

  test('public mode: a name resolving to loopback is refused at call time, at once, without retries', async () => {
    const p = createProvider(
      { provider: 'custom', model_id: 'm', api_base: 'http://llm.example.com/v1' },
      { MODEL_HOSTS: 'public' },
      { ...viaFake, lookup: async () => [{ address: '127.0.0.1', family: 4 }] },
    );
    const { error, ms } = await drain(p.stream(request()));
    assertProviderError(error, 'provider_refused');
    assert.match(error.message, /llm\.example\.com resolves to 127\.0\.0\.1/);
    assert.ok(ms < 300, `took ${ms} ms (the SDK must not retry a refusal)`);
    assert.equal(wanted.length, 0);
    assert.equal(fake.requests.length, 0);
  });

  test('a redirect is not followed: provider_http with the 3xx status', async () => {
    fake.enqueue({ status: 307 });
    const r = await run({ provider: 'custom', model_id: 'm', api_base: fake.openaiBase });
    assertProviderError(r.error, 'provider_http');
    assert.equal(r.error.status, 307);
    assert.match(r.error.message, /redirect.*not followed/);
    assert.equal(fake.requests.length, 1);
  });

  test('hostMode: any by default, public on anything unexpected', () => {
    assert.equal(hostMode(undefined), 'any');
    assert.equal(hostMode(''), 'any');
    assert.equal(hostMode('ANY'), 'any');
    assert.equal(hostMode('public'), 'public');
    assert.equal(hostMode('pubic'), 'public');
  });
});
