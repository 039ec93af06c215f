import { wireName } from './external-tools';
import { reactLoop } from './react-loop';
import type { ExternalToolSession, ExternalTools, RuntimeEvent } from './runtime.types';
import { makeAgent, MemoryWorkspace, ScriptedProvider } from './test-support';
import { MAX_TOOL_OUTPUT_BYTES } from './tools';

/** An ExternalTools port that serves `kit/echo`, `kit/fail` and `kit/huge`, and records what happens. */
function fakeTools(opts: { openFails?: boolean } = {}) {
  const log: string[] = [];
  const session: ExternalToolSession = {
    tools: [
      {
        name: 'kit/echo',
        description: 'Echo',
        parameters: { type: 'object', properties: { text: { type: 'string' } } },
      },
      { name: 'kit/fail', description: 'Fails', parameters: { type: 'object' } },
      { name: 'kit/huge', description: 'Huge', parameters: { type: 'object' } },
    ],
    async call(name, args) {
      log.push(`call ${name}`);
      if (name === 'kit/echo') return { ok: true, output: `echo: ${String(args.text)}` };
      if (name === 'kit/huge') return { ok: true, output: 'y'.repeat(MAX_TOOL_OUTPUT_BYTES * 2) };
      throw new Error('connection reset by a bug');
    },
    async close() {
      log.push('close');
    },
  };
  const port: ExternalTools = {
    async open(names) {
      log.push(`open ${names.join(',')}`);
      if (opts.openFails) throw new Error('no database');
      return session;
    },
  };
  return { port, log };
}

async function run(provider: ScriptedProvider, port: ExternalTools, external_tools: string[]) {
  const gen = reactLoop({
    agent: makeAgent(1, { tools: ['read_file'], external_tools }),
    provider,
    model: 'm',
    modelRecord: null,
    system: 'sys',
    messages: [{ role: 'user', content: 'go' }],
    workspace: new MemoryWorkspace(),
    signal: new AbortController().signal,
    externalTools: port,
  });
  const events: RuntimeEvent[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { events, result: step.value };
    events.push(step.value);
  }
}

describe('external tools in the ReAct loop', () => {
  test('wire names are provider-safe and unique', () => {
    expect(wireName('kit/echo', new Set())).toBe('kit__echo');
    expect(wireName('kit/a.b', new Set())).toBe('kit__a_b');
    expect(wireName('kit/a.b', new Set(['kit__a_b']))).toBe('kit__a_b_2');
    expect(wireName(`s/${'t'.repeat(100)}`, new Set())).toHaveLength(64);
  });

  test('offered beside the workspace tools, called by wire name, shown by allowlist name, closed at the end', async () => {
    const { port, log } = fakeTools();
    const provider = new ScriptedProvider([
      {
        tool_calls: [
          { name: 'kit__echo', arguments: { text: 'hi' } },
          { name: 'kit__fail' },
          { name: 'kit__huge' },
          { name: 'kit__echo', argumentsError: 'arguments are not JSON' },
        ],
      },
      { text: 'done' },
    ]);
    const { events, result } = await run(provider, port, ['kit/echo', 'kit/fail', 'kit/huge']);
    expect(provider.requests[0].tools.map((t) => t.name)).toEqual(['read_file', 'kit__echo', 'kit__fail', 'kit__huge']);
    expect(result.reply).toBe('done');
    expect(result.tool_calls.map((c) => [c.name, c.ok])).toEqual([
      ['kit/echo', true],
      ['kit/fail', false],
      ['kit/huge', true],
      ['kit/echo', false],
    ]);
    const results = events
      .filter((e) => e.event === 'tool_result')
      .map((e) => e.data as { name: string; error?: string; output: string });
    expect(results[0]).toMatchObject({ name: 'kit/echo', output: 'echo: hi' });
    expect(results[1].error).toBe('the kit/fail tool failed unexpectedly');
    expect(Buffer.byteLength(results[2].output)).toBeLessThanOrEqual(MAX_TOOL_OUTPUT_BYTES);
    expect(results[3].error).toBe('arguments are not JSON');
    const toolMessages = provider.requests[1].messages.filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => m.name)).toEqual(['kit__echo', 'kit__fail', 'kit__huge', 'kit__echo']);
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual([
      'open kit/echo,kit/fail,kit/huge',
      'call kit/echo',
      'call kit/fail',
      'call kit/huge',
      'close',
    ]);
  });

  test('no names: the port is not opened; a port that fails: only the workspace tools are offered', async () => {
    const quiet = fakeTools();
    await run(new ScriptedProvider([{ text: 'ok' }]), quiet.port, []);
    expect(quiet.log).toEqual([]);

    const broken = fakeTools({ openFails: true });
    const provider = new ScriptedProvider([{ text: 'ok' }]);
    const { result } = await run(provider, broken.port, ['kit/echo']);
    expect(result.reply).toBe('ok');
    expect(provider.requests[0].tools.map((t) => t.name)).toEqual(['read_file']);
  });
});
