import assert from 'node:assert/strict';
import type { AppConfig } from '../../platform/config/app-config';
import { OfflineProvider } from './providers/offline.provider';
import type { ProviderEvent } from './providers/provider';
import { RuntimeService } from './runtime.service';
import {
  agentNode,
  collect,
  edge,
  fakePorts,
  find,
  makeAgent,
  makePack,
  makeRequest,
  MemoryWorkspace,
} from './test-support';

function service(
  over: { llm?: Partial<AppConfig['llm']>; vendorAKey?: string | null; vendorBKey?: string | null } = {},
) {
  const config = {
    llm: { provider: null, model: null, apiBase: null, apiKey: null, ...over.llm },
    vendorAKey: over.vendorAKey ?? null,
    vendorBKey: over.vendorBKey ?? null,
    modelHosts: 'any',
  } as unknown as AppConfig;
  return new RuntimeService(config);
}

async function firstError(stream: AsyncIterable<ProviderEvent>) {
  try {
    for await (const _ of stream) void _;
  } catch (e) {
    return e as { code: string; message: string };
  }
  return null;
}

const stream = (s: RuntimeService, m: Parameters<RuntimeService['providerFor']>[0]) =>
  s
    .providerFor(m)
    .provider.stream({ system: '', messages: [], tools: [], model: '', signal: new AbortController().signal });

describe('RuntimeService', () => {
  test('nothing configured: the default is offline', () => {
    const s = service();
    const p = s.providerFor(null);
    assert.ok(p.provider instanceof OfflineProvider);
    assert.equal(p.name, 'offline');
    assert.equal(p.model, 'offline');
    assert.deepEqual(s.describeDefault(), {
      provider: 'offline',
      model: 'offline',
      configured: { vendor_a: false, vendor_b: false, custom: false },
    });
    assert.ok(
      s.providerFor({
        provider: 'offline',
        model_id: 'x',
        api_base: null,
        api_key: null,
        temperature: null,
        max_tokens: null,
      }).provider instanceof OfflineProvider,
    );
  });

  test('LLM_* configure the default; describeDefault never shows a key', () => {
    const s = service({
      llm: {
        provider: 'custom',
        model: 'llama3',
        apiBase: 'http://127.0.0.1:11434/v1',
        apiKey: 'sk-llm-secret-123456',
      },
      vendorAKey: 'sk-vendor-a-999999',
    });
    const p = s.providerFor(null);
    assert.equal(p.name, 'custom');
    assert.equal(p.model, 'llama3');
    const d = s.describeDefault();
    assert.deepEqual(d, {
      provider: 'custom',
      model: 'llama3',
      configured: { vendor_a: true, vendor_b: false, custom: true },
    });
    assert.ok(!JSON.stringify(d).includes('secret') && !JSON.stringify(d).includes('999999'));
    // LLM_API_BASE alone means a local OpenAI-compatible server
    assert.equal(
      service({ llm: { model: 'm', apiBase: 'http://localhost:1234/v1' } }).providerFor(null).name,
      'custom',
    );
  });

  test('providers are reused per model configuration', () => {
    const s = service();
    const rec = {
      provider: 'custom' as const,
      model_id: 'm',
      api_base: 'http://127.0.0.1:1/v1',
      api_key: 'k1',
      temperature: null,
      max_tokens: null,
    };
    const a = s.providerFor(rec).provider;
    assert.equal(s.providerFor({ ...rec, temperature: 1 }).provider, a, 'temperature is per request');
    assert.notEqual(s.providerFor({ ...rec, api_key: 'k2' }).provider, a);
    for (let i = 0; i < 100; i++) s.providerFor({ ...rec, model_id: `m${i}` });
    assert.notEqual(s.providerFor(rec).provider, a, 'at most 100 are kept: the oldest was dropped');
  });

  test('a model that cannot be built fails on use with a clean provider error', async () => {
    const noKey = service({ llm: { provider: 'vendor_a', model: 'gpt-x' } });
    assert.equal(noKey.providerFor(null).name, 'vendor_a');
    const e1 = await firstError(stream(noKey, null));
    assert.equal(e1?.code, 'provider_refused');
    assert.match(e1.message, /VENDOR_A_API_KEY/);

    const bad = service({ llm: { provider: 'openai', model: 'gpt-x' } });
    assert.equal(bad.describeDefault().provider, 'openai');
    assert.match((await firstError(stream(bad, null)))!.message, /LLM_PROVIDER "openai" is not one of/);

    const noModel = service({ llm: { provider: 'custom', apiBase: 'http://127.0.0.1:1/v1' } });
    assert.match((await firstError(stream(noModel, null)))!.message, /LLM_MODEL/);

    const blocked = service();
    const rec = {
      provider: 'custom' as const,
      model_id: 'm',
      api_base: 'http://169.254.169.254/v1',
      api_key: null,
      temperature: null,
      max_tokens: null,
    };
    assert.equal(
      (await firstError(stream(blocked, rec)))?.code,
      'provider_refused',
      'metadata addresses are always refused',
    );
  });

  test('run() runs a turn on the offline default and reports the server default in status', async () => {
    const s = service();
    const pack = makePack([agentNode('a', 1, 'discover', { artifact: 'docs/discovery.md' })], [edge('start', 'a')]);
    const f = fakePorts({
      agents: [makeAgent(1)],
      provider: new OfflineProvider(),
      workspace: new MemoryWorkspace({ 'notes.md': '# Notes\nusers want speed' }),
    });
    f.ports.provider = (m) => s.providerFor(m);
    const { events, result } = await collect(s.run(makeRequest(pack, f.ports, { message: 'Build a todo app' })));
    assert.deepEqual(find(events, 'status'), {
      run_id: 'run-1',
      state: 'running',
      provider: 'offline',
      model: 'offline',
    });
    assert.deepEqual(
      result.tool_calls.map((c) => c.name),
      ['list_files', 'read_file', 'write_file'],
    );
    assert.match(f.workspace.content('docs/discovery.md')!, /Build a todo app/);
    assert.match(result.reply, /No language model is configured/);
  });

  test('run() scrubs the server keys from error messages', async () => {
    const s = service({ vendorAKey: 'sk-vendor-a-secret-77' });
    const pack = makePack([agentNode('a', 1, 'discover')], [edge('start', 'a')]);
    const leaky = {
      name: 'leaky',
      // eslint-disable-next-line require-yield
      async *stream(): AsyncGenerator<ProviderEvent> {
        const { ProviderError } = await import('./providers/provider');
        throw new ProviderError('provider_http', 'The server answered HTTP 401: bad key sk-vendor-a-secret-77', {
          status: 401,
        });
      },
    };
    const f = fakePorts({ agents: [makeAgent(1)], provider: leaky });
    const { events } = await collect(s.run(makeRequest(pack, f.ports)));
    const e = find(events, 'error')!;
    assert.equal(e.code, 'provider_http');
    assert.ok(!e.message.includes('sk-vendor-a-secret-77'));
    assert.match(e.message, /\[redacted\]/);
  });
});
