import assert from 'node:assert/strict';
import { FakeLlm } from '../../../test/support/fake-llm';
import { createProvider } from './providers/create-provider';
import { OfflineProvider } from './providers/offline.provider';
import { ProviderError } from './providers/provider';
import {
  agentNode,
  all,
  collect,
  edge,
  fakePorts,
  find,
  gateNode,
  makeAgent,
  makePack,
  makeRequest,
  MemoryWorkspace,
  names,
  ScriptedProvider,
  SERVER,
} from './test-support';
import { runTurn } from './turn-runner';

/** start → write (discover, artifact docs/out.md) → gate1 → design (design stage) */
function gatedPack() {
  return makePack(
    [
      agentNode('write', 1, 'discover', { artifact: 'docs/out.md' }),
      gateNode('gate1', 'discover'),
      agentNode('design', 2, 'design', { artifact: 'docs/design.md' }),
    ],
    [edge('start', 'write'), edge('write', 'gate1'), edge('gate1', 'design')],
  );
}

describe('runTurn: failures', () => {
  const pack = () => makePack([agentNode('a', 1, 'discover')], [edge('start', 'a')]);

  test('abort mid-stream stops promptly: error cancelled, then workflow and done (cancelled)', async () => {
    const provider = new ScriptedProvider([{ text: Array.from({ length: 200 }, (_, i) => `w${i} `), delayMs: 5 }]);
    const f = fakePorts({ agents: [makeAgent(1)], provider });
    const ctrl = new AbortController();
    const { events, result } = await collect(
      runTurn(makeRequest(pack(), f.ports, { signal: ctrl.signal }), SERVER),
      (e) => {
        if (e.event === 'content') ctrl.abort();
      },
    );
    assert.ok(all(events, 'content').length < 5, 'stopped at once');
    assert.deepEqual(names(events).slice(-3), ['error', 'workflow', 'done']);
    assert.deepEqual(find(events, 'error'), { code: 'cancelled', message: 'The run was cancelled.' });
    assert.equal(find(events, 'done')!.state, 'cancelled');
    assert.equal(result.state, 'cancelled');
  });

  test('a provider that ignores the signal is still left behind at once', async () => {
    const provider = new ScriptedProvider([{ hang: true }]);
    const f = fakePorts({ agents: [makeAgent(1)], provider });
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort({ code: 'turn_timeout' }), 30);
    const started = Date.now();
    const { events, result } = await collect(runTurn(makeRequest(pack(), f.ports, { signal: ctrl.signal }), SERVER));
    assert.ok(Date.now() - started < 1000);
    assert.equal(
      find(events, 'error')!.code,
      'turn_timeout',
      'the chat layer aborts with {code: turn_timeout} at the turn limit',
    );
    assert.equal(result.state, 'error');
  });

  test('a ProviderError becomes a clean error event naming the provider and status, never a key', async () => {
    const key = 'sk-agent-secret-0123456789';
    const err = new ProviderError(
      'provider_http',
      `The custom model server answered HTTP 500: invalid key ${key} and sk-server-abcdefghijkl`,
      { status: 500 },
    );
    const provider = new ScriptedProvider([{ text: 'partial ', error: err }]);
    const model = {
      provider: 'custom' as const,
      model_id: 'fake-1',
      api_base: 'http://x',
      api_key: key,
      temperature: null,
      max_tokens: null,
    };
    const f = fakePorts({ agents: [makeAgent(1, { model })], provider, providerName: 'custom' });
    const { events, result } = await collect(
      runTurn(makeRequest(pack(), f.ports), { ...SERVER, secrets: ['sk-server-abcdefghijkl'] }),
    );
    assert.deepEqual(names(events), [
      'status',
      'pack',
      'workflow',
      'node',
      'agent',
      'content',
      'error',
      'workflow',
      'done',
    ]);
    const e = find(events, 'error')!;
    assert.equal(e.code, 'provider_http');
    assert.match(e.message, /HTTP 500/);
    assert.match(e.message, /provider custom, model fake-1/);
    assert.ok(
      !JSON.stringify(events).includes('sk-agent-secret') && !JSON.stringify(events).includes('sk-server-'),
      'no key anywhere',
    );
    assert.equal(find(events, 'done')!.state, 'error');
    assert.equal(result.error?.code, 'provider_http');
  });

  test('anything else a provider throws is a provider_protocol error; a failing port is internal', async () => {
    const provider = new ScriptedProvider([{ error: new TypeError('boom') }]);
    const f = fakePorts({ agents: [makeAgent(1)], provider });
    const r = await collect(runTurn(makeRequest(pack(), f.ports), SERVER));
    assert.equal(find(r.events, 'error')!.code, 'provider_protocol');

    const g = fakePorts({ agents: [makeAgent(1)], provider: new ScriptedProvider([{ text: 'x' }]) });
    g.ports.saveState = async () => {
      throw new Error('db down: password=hunter2');
    };
    const bad = await collect(runTurn(makeRequest(gatedPack(), g.ports, { message: '', advance: true }), SERVER));
    assert.deepEqual(find(bad.events, 'error'), { code: 'internal', message: 'The turn failed unexpectedly.' });
    assert.deepEqual(names(bad.events).slice(-2), ['workflow', 'done']);
  });
});

describe('runTurn: artifacts that cannot be stored', () => {
  test('a full workspace or a reply over 1 MiB → error artifact_failed', async () => {
    const pack = makePack([agentNode('a', 1, 'discover', { artifact: 'docs/a.md' })], [edge('start', 'a')]);
    const full = fakePorts({
      agents: [makeAgent(1)],
      provider: new ScriptedProvider([{ text: 'reply' }]),
      workspace: new MemoryWorkspace({ 'x.md': 'x' }, false, 1),
    });
    const r1 = await collect(runTurn(makeRequest(pack, full.ports), SERVER));
    assert.equal(find(r1.events, 'error')!.code, 'artifact_failed');
    assert.match(find(r1.events, 'error')!.message, /at most 1 files/);
    assert.equal(r1.result.reply, 'reply', 'the reply is still returned');

    // over 1 MiB of UTF-8 but within the reply's character cap (2 bytes per character)
    const big = fakePorts({
      agents: [makeAgent(1)],
      provider: new ScriptedProvider([{ text: ['é'.repeat(600_000)] }]),
    });
    const r2 = await collect(runTurn(makeRequest(pack, big.ports), SERVER));
    assert.equal(find(r2.events, 'error')!.code, 'artifact_failed');
    assert.equal(big.workspace.files.size, 0);

    const huge = fakePorts({
      agents: [makeAgent(1)],
      provider: new ScriptedProvider([{ text: ['x'.repeat(1024 * 1024 + 1)] }]),
    });
    const r3 = await collect(runTurn(makeRequest(pack, huge.ports), SERVER));
    assert.equal(find(r3.events, 'error')!.code, 'reply_too_large');
    assert.equal(r3.result.state, 'error');
  });
});

describe('runTurn with the offline provider', () => {
  const pdlcLike = () =>
    makePack(
      [
        agentNode('disc', 1, 'discover', { artifact: 'docs/discovery.md' }),
        gateNode('g1', 'discover'),
        agentNode('des', 2, 'design', { artifact: 'docs/design.md' }),
      ],
      [edge('start', 'disc'), edge('disc', 'g1'), edge('g1', 'des')],
    );
  const skill =
    '## Design\n`docs/design.md` has these sections:\n1. **Summary** — the solution in three sentences.\n2. **Scope** — the user stories.\n3. **Risks and open questions**';

  async function offlineTurn() {
    const ws = new MemoryWorkspace({
      'README.md': '# Pocket Budget\nA budgeting app.',
      'docs/discovery.md':
        '# Discovery\n\n## Problem\nStudents lose track of shared costs.\n\n## Open questions\n- Bank sync?',
      'src/app.ts': 'export {}',
    });
    const agents = [makeAgent(1), makeAgent(2, { skill_prompts: [skill] })];
    const f = fakePorts({
      agents,
      provider: new OfflineProvider(),
      workspace: ws,
      providerName: 'offline',
      model: 'offline',
    });
    const r = await collect(
      runTurn(makeRequest(pdlcLike(), f.ports, { stage: 'design', message: 'Plan the first release' }), SERVER),
    );
    return { ...r, ws };
  }

  test('lists, reads, writes the artifact and says no model is configured', async () => {
    const { events, result, ws } = await offlineTurn();
    assert.deepEqual(
      result.tool_calls.map((c) => c.name),
      ['list_files', 'read_file', 'read_file', 'write_file'],
    );
    assert.ok(result.tool_calls.every((c) => c.ok));
    assert.deepEqual(
      result.tool_calls.filter((c) => c.name === 'read_file').map((c) => (c.arguments as { path: string }).path),
      ['docs/discovery.md', 'README.md'],
    );
    const doc = ws.content('docs/design.md')!;
    assert.match(doc, /^# Design: Plan the first release/);
    assert.match(doc, /## Summary\n\n_The solution in three sentences\._/);
    assert.match(
      doc,
      /## Risks and open questions\n\n- Bank sync\? _\(from `docs\/discovery.md`\)_/,
      'carries over what the inputs say',
    );
    assert.match(result.reply, /^No language model is configured, so the offline assistant answered:/);
    assert.match(result.reply, /read docs\/discovery\.md and README\.md/);
    assert.match(result.reply, /wrote a first draft of docs\/design\.md/);
    assert.ok(all(events, 'content').length > 3, 'streamed in several deltas');
    assert.equal(find(events, 'agent')!.model, 'offline');
    assert.equal(all(events, 'files_changed').length, 1, 'the agent wrote its artifact itself');
    assert.ok(result.usage.input_tokens > 0 && result.usage.output_tokens > 0);
  });

  test('is deterministic: two runs give the same events and files', async () => {
    const a = await offlineTurn();
    const b = await offlineTurn();
    assert.deepEqual(a.events, b.events);
    assert.deepEqual(a.result, b.result);
    assert.equal(a.ws.content('docs/design.md'), b.ws.content('docs/design.md'));
  });
});

describe('runTurn through a real provider (FakeLlm, OpenAI wire format)', () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await FakeLlm.start();
  });
  afterAll(() => fake.close());

  test('the model calls write_file, gets the result, then answers', async () => {
    const key = 'sk-fake-user-key-123456';
    const provider = createProvider(
      { provider: 'custom', model_id: 'fake-1', api_base: fake.openaiBase, api_key: key },
      { MODEL_HOSTS: 'any' },
      { maxRetries: 0 },
    );
    fake.enqueue(
      { tool_calls: [{ name: 'write_file', arguments: { path: 'docs/notes.md', content: 'hello notes' } }] },
      { text: 'Done writing.' },
    );
    const model = {
      provider: 'custom' as const,
      model_id: 'fake-1',
      api_base: fake.openaiBase,
      api_key: key,
      temperature: 0.5,
      max_tokens: 300,
    };
    const pack = makePack([agentNode('a', 1, 'discover', { artifact: 'docs/out.md' })], [edge('start', 'a')]);
    const f = fakePorts({ agents: [makeAgent(1, { model })], provider, providerName: 'custom' });
    const { events, result } = await collect(runTurn(makeRequest(pack, f.ports), SERVER));
    assert.equal(result.state, 'done', JSON.stringify(find(events, 'error')));
    assert.equal(result.reply, 'Done writing.');
    assert.equal(f.workspace.content('docs/notes.md'), 'hello notes');
    assert.equal(f.workspace.content('docs/out.md'), 'Done writing.');
    assert.deepEqual(result.tool_calls, [
      { name: 'write_file', arguments: { path: 'docs/notes.md', content: 'hello notes' }, ok: true },
    ]);
    assert.equal(fake.requests.length, 2);
    const first = fake.requests[0].body;
    assert.equal(first.model, 'fake-1');
    assert.equal(first.temperature, 0.5);
    assert.deepEqual(
      first.tools.map((t: { function: { name: string } }) => t.function.name),
      ['list_files', 'read_file', 'write_file', 'edit_file', 'search_files'],
    );
    const toolMsg = fake.requests[1].body.messages.find((m: { role: string }) => m.role === 'tool');
    assert.ok(toolMsg?.tool_call_id, 'the result went back as a tool message');
    assert.match(toolMsg.content, /Created docs\/notes\.md/);
    assert.equal(fake.requests[0].headers.authorization, `Bearer ${key}`);
    assert.ok(!JSON.stringify(events).includes(key));
    assert.ok(result.usage.input_tokens > 0 && result.usage.output_tokens > 0);
  });

  test('an upstream 500 becomes error provider_http', async () => {
    const provider = createProvider(
      { provider: 'custom', model_id: 'fake-1', api_base: fake.openaiBase, api_key: null },
      { MODEL_HOSTS: 'any' },
      { maxRetries: 0 },
    );
    fake.enqueue({ status: 500 });
    const pack = makePack([agentNode('a', 1, 'discover')], [edge('start', 'a')]);
    const f = fakePorts({ agents: [makeAgent(1)], provider, providerName: 'custom', model: 'fake-1' });
    const { events } = await collect(runTurn(makeRequest(pack, f.ports), SERVER));
    const e = find(events, 'error')!;
    assert.equal(e.code, 'provider_http');
    assert.match(e.message, /HTTP 500/);
    assert.match(e.message, /custom/);
    assert.deepEqual(names(events).slice(-3), ['error', 'workflow', 'done']);
  });
});
