/**
 * Test helpers for the runtime's unit tests: an in-memory Workspace, fake ports, a scripted provider,
 * pack and agent builders, and a collector for a turn's events. Used only by *.spec.ts beside the code.
 */
import type { GraphEdge, GraphNode } from '@service/workflow-graph';
import { DomainError } from '../../platform/errors/domain-error';
import { isInside } from '../projects/workspace-path';
import {
  ProviderError,
  type ChatMessage,
  type Provider,
  type ProviderEvent,
  type ProviderRequest,
  type ToolSpec,
} from './providers/provider';
import {
  TOOL_NAMES,
  type AwaitingGate,
  type FileChangeInfo,
  type PackSnapshot,
  type ResolvedAgent,
  type RuntimeEvent,
  type TurnPorts,
  type TurnRequest,
  type TurnResult,
  type Workspace,
  type WorkspaceEntry,
} from './runtime.types';
import type { TurnDeps } from './turn-runner';

/**
 * A copy as the wire or the jsonb column would carry it. (Not structuredClone: under jest that builds
 * the copy in Node's realm, whose Object.prototype is not the test's, and node:assert's deepEqual
 * compares prototypes.)
 */
const asJson = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

export const SERVER: TurnDeps = { server: { provider: 'offline', model: 'offline' } };

export class MemoryWorkspace implements Workspace {
  readonly files = new Map<string, { content: string; revision: number }>();
  readonly writes: string[] = [];
  /** idempotency key → the change its write made (the database keeps it on the revision) */
  readonly keys = new Map<string, FileChangeInfo>();

  constructor(
    initial: Record<string, string> = {},
    readonly readOnly = false,
    private readonly maxFiles = 10_000,
  ) {
    for (const [path, content] of Object.entries(initial)) this.files.set(path, { content, revision: 1 });
  }

  async list(dir?: string): Promise<WorkspaceEntry[]> {
    return [...this.files.entries()]
      .filter(([p]) => isInside(dir ?? '', p))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([path, f]) => ({ path, size: Buffer.byteLength(f.content), revision: f.revision }));
  }

  async read(path: string) {
    const f = this.files.get(path);
    return f ? { ...f } : null;
  }

  async write(path: string, content: string, key?: string): Promise<FileChangeInfo> {
    if (this.readOnly) throw new Error('read-only');
    const existing = this.files.get(path);
    if (existing && existing.content === content) return { path, change: 'unchanged', revision: existing.revision };
    if (!existing && this.files.size >= this.maxFiles)
      throw new DomainError('conflict', `A workspace holds at most ${this.maxFiles} files.`);
    const revision = (existing?.revision ?? 0) + 1;
    this.files.set(path, { content, revision });
    this.writes.push(path);
    const change: FileChangeInfo = { path, change: existing ? 'modified' : 'added', revision };
    if (key) this.keys.set(key, change);
    return change;
  }

  async landed(key: string): Promise<FileChangeInfo | null> {
    return this.keys.get(key) ?? null;
  }

  /** A copy of the files and keys as they are now (what a crash leaves behind). */
  snapshot(): MemoryWorkspace {
    const copy = new MemoryWorkspace({}, this.readOnly, this.maxFiles);
    for (const [p, f] of this.files) copy.files.set(p, { ...f });
    for (const [k, c] of this.keys) copy.keys.set(k, { ...c });
    return copy;
  }

  async search(query: string, dir?: string) {
    const q = query.toLowerCase();
    const hits: Array<{ path: string; line: number; text: string }> = [];
    for (const { path } of await this.list(dir)) {
      this.files
        .get(path)!
        .content.split('\n')
        .forEach((text, i) => text.toLowerCase().includes(q) && hits.push({ path, line: i + 1, text }));
    }
    return hits;
  }

  content(path: string): string | undefined {
    return this.files.get(path)?.content;
  }
}

// ---------------------------------------------------------------------------------------------

export interface ScriptStep {
  /** streamed as these deltas (a string is split into words) */
  text?: string | string[];
  tool_calls?: Array<{ name: string; arguments?: Record<string, unknown>; argumentsError?: string; id?: string }>;
  /** thrown instead of answering (after the text, if any) */
  error?: Error;
  /** wait this long between deltas, honouring the abort signal */
  delayMs?: number;
  /** never answer and ignore the abort signal (a provider that does not cooperate) */
  hang?: boolean;
  usage?: { input_tokens: number; output_tokens: number };
}

/** A provider that answers from a script, one step per model call, and records every request. */
export class ScriptedProvider implements Provider {
  readonly requests: Array<{
    system: string;
    messages: ChatMessage[];
    tools: ToolSpec[];
    model: string;
    temperature?: number;
    maxTokens?: number;
  }> = [];
  private readonly steps: ScriptStep[];

  constructor(
    steps: ScriptStep[],
    readonly name = 'scripted',
    private readonly fallback: ScriptStep = { text: 'ok' },
  ) {
    this.steps = [...steps];
  }

  get remaining() {
    return this.steps.length;
  }

  async *stream(req: ProviderRequest): AsyncGenerator<ProviderEvent> {
    this.requests.push({
      system: req.system,
      messages: asJson(req.messages),
      tools: req.tools,
      model: req.model,
      temperature: req.temperature,
      maxTokens: req.maxTokens,
    });
    const step = this.steps.shift() ?? this.fallback;
    if (step.hang) await new Promise(() => undefined);
    const deltas = typeof step.text === 'string' ? (step.text.match(/\S+\s*|\s+/g) ?? []) : (step.text ?? []);
    for (const d of deltas) {
      if (step.delayMs) await sleep(step.delayMs, req.signal);
      yield { type: 'text', delta: d };
    }
    if (step.error) throw step.error;
    let n = 0;
    for (const c of step.tool_calls ?? []) {
      yield {
        type: 'tool_call',
        call: {
          id: c.id ?? `call_${this.requests.length}_${++n}`,
          name: c.name,
          arguments: c.arguments ?? {},
          ...(c.argumentsError ? { argumentsError: c.argumentsError } : {}),
        },
      };
    }
    yield { type: 'usage', ...(step.usage ?? { input_tokens: 10, output_tokens: 5 }) };
    yield { type: 'finish', reason: step.tool_calls?.length ? 'tool_calls' : 'stop' };
  }
}

function sleep(ms: number, signal: AbortSignal) {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(new ProviderError('provider_aborted', 'The model call was cancelled.'));
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => (clearTimeout(t), reject(new ProviderError('provider_aborted', 'The model call was cancelled.'))),
      { once: true },
    );
  });
}

// ---------------------------------------------------------------------------------------------

export const STAGES = ['discover', 'design', 'develop'];

export function agentNode(
  node_key: string,
  agent_id: number | null,
  stage_label: string | null,
  config: Record<string, unknown> = {},
): GraphNode {
  return { node_key, type: 'agent', agent_id, stage_label, config, position_x: 0, position_y: 0 };
}
export function gateNode(node_key: string, stage_label: string | null): GraphNode {
  return { node_key, type: 'gate', agent_id: null, stage_label, config: {}, position_x: 0, position_y: 0 };
}
export function branchNode(node_key: string, stage_label: string | null): GraphNode {
  return { node_key, type: 'branch', agent_id: null, stage_label, config: {}, position_x: 0, position_y: 0 };
}
export function edge(from_node: string, to_node: string, condition: string | null = null): GraphEdge {
  return { from_node, to_node, condition };
}

export function makePack(nodes: GraphNode[], edges: GraphEdge[], stages = STAGES): PackSnapshot {
  return { id: 7, slug: 'test-pack', name: 'Test pack', domain: 'pdlc', stages, nodes, edges };
}

export function makeAgent(id: number, over: Partial<ResolvedAgent> = {}): ResolvedAgent {
  return {
    id,
    name: `Agent ${id}`,
    role: 'tester',
    system_prompt: `You are agent ${id}.`,
    skill_prompts: [],
    tools: [...TOOL_NAMES],
    max_iterations: 8,
    model: null,
    ...over,
  };
}

export interface Fakes {
  ports: TurnPorts;
  saved: Array<{ stage: string; awaiting_gate: AwaitingGate | null }>;
  workspace: MemoryWorkspace;
}

export function fakePorts(opts: {
  agents: ResolvedAgent[];
  workspace?: MemoryWorkspace;
  provider: Provider;
  providerName?: string;
  model?: string;
}): Fakes {
  const saved: Fakes['saved'] = [];
  const workspace = opts.workspace ?? new MemoryWorkspace();
  const ports: TurnPorts = {
    loadAgent: async (id) => opts.agents.find((a) => a.id === id) ?? null,
    saveState: async (s) => void saved.push(asJson(s)),
    workspace,
    provider: (m) => ({
      provider: opts.provider,
      name: opts.providerName ?? opts.provider.name,
      model: m?.model_id ?? opts.model ?? 'test-model',
    }),
  };
  return { ports, saved, workspace };
}

export function makeRequest(pack: PackSnapshot, ports: TurnPorts, over: Partial<TurnRequest> = {}): TurnRequest {
  return {
    run_id: 'run-1',
    message: 'hello',
    advance: false,
    node_key: null,
    project_slug: 'proj',
    pack,
    stage: pack.stages[0],
    awaiting_gate: null,
    history: [],
    ports,
    signal: new AbortController().signal,
    ...over,
  };
}

/** Runs a turn generator to its end. `onEvent` may act on events as they arrive (e.g. abort). */
export async function collect(
  gen: AsyncGenerator<RuntimeEvent, TurnResult>,
  onEvent?: (e: RuntimeEvent) => void,
): Promise<{ events: RuntimeEvent[]; result: TurnResult }> {
  const events: RuntimeEvent[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { events, result: step.value };
    events.push(step.value);
    onEvent?.(step.value);
  }
}

/** Event names, with runs of `content` collapsed to one. */
export function names(events: RuntimeEvent[]): string[] {
  return events.map((e) => e.event).filter((n, i, all) => !(n === 'content' && all[i - 1] === 'content'));
}

type DataOf<N extends RuntimeEvent['event']> = Extract<RuntimeEvent, { event: N }>['data'];

export function find<N extends RuntimeEvent['event']>(events: RuntimeEvent[], name: N): DataOf<N> | undefined {
  return events.find((e) => e.event === name)?.data as DataOf<N> | undefined;
}

export function all<N extends RuntimeEvent['event']>(events: RuntimeEvent[], name: N): Array<DataOf<N>> {
  return events.filter((e) => e.event === name).map((e) => e.data as DataOf<N>);
}
