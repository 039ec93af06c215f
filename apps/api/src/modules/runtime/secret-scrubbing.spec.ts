/**
 * A key that does not look like one (no `sk-` prefix, so the shape-based scrubbing in turn-outcome.ts
 * cannot catch it) still never reaches a run event or the turn's result (the run log, the chat
 * response and history are made from those): the runner removes every key it knows by value.
 */
import { ProviderError } from './providers/provider';
import {
  agentNode,
  collect,
  edge,
  fakePorts,
  find,
  makeAgent,
  makePack,
  makeRequest,
  ScriptedProvider,
  SERVER,
} from './test-support';
import { runTurn } from './turn-runner';

const AGENT_KEY = 'abc123-not-sk';
const SERVER_KEY = 'plain-server-token-42';

/** an upstream error that echoes the key back, as some gateways do ("invalid key: …") */
function echoingProvider(key: string) {
  return new ScriptedProvider([
    { error: new ProviderError('provider_http', `custom returned HTTP 401: invalid api key "${key}" for this org`) },
  ]);
}

describe('runTurn scrubs keys that are not sk-shaped', () => {
  test("the agent's own model key", async () => {
    const model = {
      provider: 'custom' as const,
      model_id: 'm',
      api_base: 'http://127.0.0.1:9/v1',
      api_key: AGENT_KEY,
      temperature: null,
      max_tokens: null,
    };
    const pack = makePack([agentNode('a', 1, 'discover')], [edge('start', 'a')]);
    const f = fakePorts({
      agents: [makeAgent(1, { model })],
      provider: echoingProvider(AGENT_KEY),
      providerName: 'custom',
    });
    const { events, result } = await collect(runTurn(makeRequest(pack, f.ports), SERVER));
    expect(result.state).toBe('error');
    const error = find(events, 'error');
    expect(error!.message).toMatch(/invalid api key "\[redacted\]"/);
    expect(JSON.stringify(events)).not.toContain(AGENT_KEY);
    expect(JSON.stringify(result)).not.toContain(AGENT_KEY);
  });

  test('a server key (LLM_API_KEY, VENDOR_*_API_KEY)', async () => {
    const pack = makePack([agentNode('a', 1, 'discover')], [edge('start', 'a')]);
    const f = fakePorts({ agents: [makeAgent(1)], provider: echoingProvider(SERVER_KEY), providerName: 'custom' });
    const { events, result } = await collect(runTurn(makeRequest(pack, f.ports), { ...SERVER, secrets: [SERVER_KEY] }));
    expect(result.state).toBe('error');
    expect(find(events, 'error')!.message).toMatch(/\[redacted\]/);
    expect(JSON.stringify(events)).not.toContain(SERVER_KEY);
    expect(JSON.stringify(result)).not.toContain(SERVER_KEY);
  });
});
