import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-node';
import type { AppConfig } from '../../platform/config/app-config';
import { setTracingHandle, stopTracing } from '../../platform/telemetry/tracing';
import { ProviderError } from '../runtime/providers/provider';
import {
  agentNode,
  collect,
  edge,
  fakePorts,
  makeAgent,
  makePack,
  makeRequest,
  ScriptedProvider,
  SERVER,
} from '../runtime/test-support';
import { runTurn } from '../runtime/turn-runner';
import { AppMetrics } from './app-metrics';
import { TurnTelemetry } from './turn-telemetry';

const CONFIG = { version: '1.2.3' } as AppConfig;

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();

afterAll(async () => {
  await stopTracing();
  await provider.shutdown();
});

async function value(metrics: AppMetrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  // a histogram's series are `<name>_count`, `<name>_sum`, `<name>_bucket` (metricName)
  const series = (await metrics.registry.getMetricsAsJSON()).flatMap((m) =>
    m.values.map((v) => ({ ...v, name: (v as { metricName?: string }).metricName ?? m.name })),
  );
  const match = series.find(
    (v) =>
      v.name === name &&
      Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want),
  );
  return match?.value ?? 0;
}

function oneAgentTurn(steps: ConstructorParameters<typeof ScriptedProvider>[0]) {
  const pack = makePack([agentNode('solo', 1, 'discover')], [edge('start', 'solo')]);
  const f = fakePorts({
    agents: [makeAgent(1, { name: 'Scribe' })],
    provider: new ScriptedProvider(steps),
    providerName: 'vendor_a',
    model: 'gpt-test',
  });
  return makeRequest(pack, f.ports);
}

const script = () => [
  { tool_calls: [{ name: 'list_files', arguments: {} }], usage: { input_tokens: 11, output_tokens: 3 } },
  {
    tool_calls: [{ name: 'read_file', arguments: { path: 'missing.md' } }],
    usage: { input_tokens: 13, output_tokens: 4 },
  },
  { text: 'Here it is.', usage: { input_tokens: 17, output_tokens: 5 } },
];

describe('TurnTelemetry, tracing off', () => {
  test('events and result pass through unchanged; the turn counts in the metrics', async () => {
    const metrics = new AppMetrics();
    const telemetry = new TurnTelemetry(metrics, CONFIG);
    const plain = await collect(runTurn(oneAgentTurn(script()), SERVER));
    const observed = await collect(telemetry.run((r) => runTurn(r, SERVER), oneAgentTurn(script())));
    expect(observed.events).toEqual(plain.events);
    expect(observed.result).toEqual(plain.result);

    expect(await value(metrics, 'agentic_turns_total', { outcome: 'done' })).toBe(1);
    expect(await value(metrics, 'agentic_turns_in_progress')).toBe(0);
    expect(await value(metrics, 'agentic_turn_duration_seconds_count', { outcome: 'done' })).toBe(1);
    expect(await value(metrics, 'agentic_turn_time_to_first_token_seconds_count')).toBe(1);
    const tokens = { provider: 'vendor_a', model: 'gpt-test' };
    expect(await value(metrics, 'agentic_model_tokens_total', { ...tokens, type: 'input' })).toBe(41);
    expect(await value(metrics, 'agentic_model_tokens_total', { ...tokens, type: 'output' })).toBe(12);
    expect(await value(metrics, 'agentic_model_calls_total', { ...tokens, result: 'ok' })).toBe(3);
    // no span was made: tracing is off
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  test('a failed model call ends the turn as error, counted once, without a first token', async () => {
    const metrics = new AppMetrics();
    const telemetry = new TurnTelemetry(metrics, CONFIG);
    const req = oneAgentTurn([{ error: new ProviderError('provider_http', 'upstream said no', { status: 500 }) }]);
    const { result } = await collect(telemetry.run((r) => runTurn(r, SERVER), req));
    expect(result.state).toBe('error');
    expect(await value(metrics, 'agentic_turns_total', { outcome: 'error' })).toBe(1);
    expect(await value(metrics, 'agentic_turn_time_to_first_token_seconds_count')).toBe(0);
    expect(await value(metrics, 'agentic_model_calls_total', { result: 'error' })).toBe(1);
  });
});

describe('TurnTelemetry, tracing on', () => {
  let spans: ReadableSpan[];
  const parentTracer = trace.getTracer('test');

  beforeAll(async () => {
    setTracingHandle({ shutdown: async () => undefined });
    exporter.reset();
    const telemetry = new TurnTelemetry(new AppMetrics(), CONFIG);
    // the request's span: what the HTTP instrumentation makes from a traceparent
    const request = parentTracer.startSpan('GET /agent/stream');
    await context.with(trace.setSpan(context.active(), request), async () => {
      await collect(telemetry.run((r) => runTurn(r, SERVER), oneAgentTurn(script())));
    });
    request.end();
    spans = exporter.getFinishedSpans();
  });

  const named = (name: string) => spans.filter((s) => s.name === name);
  const parentOf = (s: ReadableSpan) => spans.find((p) => p.spanContext().spanId === s.parentSpanContext?.spanId);

  test('request → turn → node → model calls and tool calls, one trace', () => {
    const [request] = named('GET /agent/stream');
    const [turn] = named('turn');
    const [node] = named('node solo');
    expect(parentOf(turn)).toBe(request);
    expect(parentOf(node)).toBe(turn);
    const chats = named('chat gpt-test');
    expect(chats).toHaveLength(3);
    for (const c of chats) expect(parentOf(c)).toBe(node);
    const tools = spans.filter((s) => s.name.startsWith('execute_tool '));
    expect(tools.map((t) => t.name)).toEqual(['execute_tool list_files', 'execute_tool read_file']);
    for (const t of tools) expect(parentOf(t)).toBe(node);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  test('GenAI attributes on model calls, tools and the agent node; turn totals', () => {
    const [first] = named('chat gpt-test');
    expect(first.kind).toBe(SpanKind.CLIENT);
    expect(first.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    const [read] = named('execute_tool read_file');
    expect(read.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file' });
    expect(read.status.code).toBe(SpanStatusCode.ERROR); // the file does not exist: the tool failed
    expect(named('execute_tool list_files')[0].status.code).toBe(SpanStatusCode.UNSET);
    expect(named('node solo')[0].attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'Scribe',
      'workflow.node.type': 'agent',
    });
    expect(named('turn')[0].attributes).toMatchObject({
      'workflow.run_id': 'run-1',
      'workflow.pack.slug': 'test-pack',
      'workflow.outcome': 'done',
      'gen_ai.usage.input_tokens': 41,
      'gen_ai.usage.output_tokens': 12,
    });
  });

  test('no prompt or reply text is recorded', () => {
    const text = JSON.stringify(spans.map((s) => s.attributes));
    expect(text).not.toContain('hello');
    expect(text).not.toContain('Here it is');
  });
});
