/**
 * One turn through a pack (SPEC §6): advance, pick the node, walk agent/branch/gate nodes, move stages,
 * write artifacts, at most 25 nodes. Yields typed events (all but `close`) and returns the result.
 * Turn failures become an `error` event followed by the final `workflow` and `done`; nothing throws.
 */
import { entryNode, indexGraph, nextAfter, outgoingEdges, type GraphIndex, type GraphNode } from '@service/workflow-graph';
import { ProviderError, type ChatMessage } from './providers/provider';
import { reactLoop } from './react-loop';
import type { AwaitingGate, FileChangeInfo, RuntimeEvent, TurnRequest, TurnResult, Usage } from './runtime.types';

export const MAX_NODES_PER_TURN = 25;

class TurnError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

export function buildSystemPrompt(req: TurnRequest, agent: { system_prompt: string; skill_prompts: string[]; name: string; role: string }, node: GraphNode, stage: string) {
  const parts = [agent.system_prompt.trim(), ...agent.skill_prompts.map((p) => p.trim())].filter(Boolean);
  const context = [
    '## Context',
    `You are ${agent.name}${agent.role ? ` (${agent.role})` : ''}, working in the "${stage}" stage of the pack "${req.pack.name}" (stages: ${req.pack.stages.join(' → ')}).`,
    req.project_slug ? `Project: ${req.project_slug}. The workspace tools operate on this project's files.` : 'Demo mode: the workspace is a read-only sample.',
    `Node: ${node.node_key}.`,
  ];
  const config = Object.entries(node.config ?? {}).filter(([k]) => k !== 'artifact');
  if (config.length) context.push(`Node settings: ${JSON.stringify(Object.fromEntries(config))}`);
  const artifact = typeof node.config?.artifact === 'string' ? node.config.artifact : null;
  if (artifact) context.push(`Artifact to produce: ${artifact}`);
  parts.push(context.join('\n'));
  return parts.join('\n\n');
}

export async function* runTurn(req: TurnRequest): AsyncGenerator<RuntimeEvent, TurnResult> {
  const { pack, ports } = req;
  const stages = pack.stages;
  let stage = stages.includes(req.stage) ? req.stage : stages[0];
  let awaiting: AwaitingGate | null = req.awaiting_gate;
  const usage: Usage = { input_tokens: 0, output_tokens: 0 };
  const toolCalls: TurnResult['tool_calls'] = [];
  const filesChanged: FileChangeInfo[] = [];
  let reply = '';
  let lastNodeKey: string | null = null;
  let lastAgent: TurnResult['agent'] = null;
  let error: TurnResult['error'] = null;
  let state: TurnResult['state'] = 'done';

  const def = ports.provider(null);
  yield { event: 'status', data: { run_id: req.run_id, state: 'running', provider: def.name, model: def.model } };
  yield { event: 'pack', data: { pack_id: pack.id, slug: pack.slug, name: pack.name, domain: pack.domain, stages } };
  const workflowEvent = (): RuntimeEvent => ({
    event: 'workflow',
    data: { project_slug: req.project_slug, domain: pack.domain, stage, pack_id: pack.id, awaiting_gate: awaiting },
  });
  yield workflowEvent();

  function* moveTo(to: string): Generator<RuntimeEvent> {
    const from = stage;
    stage = to;
    yield { event: 'stage', data: { from, to, index: stages.indexOf(to), stages } };
  }

  try {
    if (req.signal.aborted) throw new TurnError('cancelled', 'The run was cancelled.');
    if (req.advance) {
      const idx = stages.indexOf(stage);
      const target = awaiting?.next_stage && stages.includes(awaiting.next_stage) ? awaiting.next_stage : stages[idx + 1];
      if (!target || stages.indexOf(target) <= idx) throw new TurnError('last_stage', `"${stage}" is the last stage of ${pack.name}: there is nothing to advance to.`);
      awaiting = null;
      yield* moveTo(target);
      await ports.saveState({ stage, awaiting_gate: null });
    }

    if (req.message.trim()) {
      const index = indexGraph({ nodes: pack.nodes, edges: pack.edges });
      let node: GraphNode | null;
      if (req.node_key) {
        node = index.nodes.get(req.node_key) ?? null;
        if (!node) throw new TurnError('unknown_node', `The pack has no node "${req.node_key}".`);
      } else {
        node = entryNode(index, stage);
        if (!node) throw new TurnError('no_entry_node', `The stage "${stage}" has no agent node to talk to.`);
      }
      if (node.stage_label && node.stage_label !== stage && stages.includes(node.stage_label)) {
        yield* moveTo(node.stage_label);
        await ports.saveState({ stage, awaiting_gate: awaiting });
      }
      const walk = walkGraph(req, index, node, () => stage, (s) => moveTo(s), (g) => (awaiting = g));
      for (;;) {
        const step = await walk.next();
        if (step.done) {
          reply = step.value.reply;
          lastNodeKey = step.value.nodeKey;
          lastAgent = step.value.agent;
          usage.input_tokens += step.value.usage.input_tokens;
          usage.output_tokens += step.value.usage.output_tokens;
          toolCalls.push(...step.value.toolCalls);
          filesChanged.push(...step.value.files);
          if (step.value.error) throw new TurnError(step.value.error.code, step.value.error.message);
          break;
        }
        yield step.value;
      }
    }
  } catch (e) {
    if (req.signal.aborted && (req.signal.reason as { code?: string } | undefined)?.code === 'turn_timeout') {
      state = 'error';
      error = { code: 'turn_timeout', message: 'The turn took longer than its time limit and was stopped.' };
    } else if (req.signal.aborted) {
      state = 'cancelled';
      error = { code: 'cancelled', message: 'The run was cancelled.' };
    } else if (e instanceof TurnError) {
      state = 'error';
      error = { code: e.code, message: e.message };
    } else if (e instanceof ProviderError) {
      state = 'error';
      error = { code: e.code, message: e.message };
    } else {
      state = 'error';
      error = { code: 'internal', message: 'The turn failed unexpectedly.' };
    }
    yield { event: 'error', data: error };
  }
  yield workflowEvent();
  yield { event: 'done', data: { run_id: req.run_id, reply, usage, state } };
  return { state, reply, stage, awaiting_gate: awaiting, node_key: lastNodeKey, agent: lastAgent, tool_calls: toolCalls, files_changed: filesChanged, usage, error };
}

interface WalkResult {
  reply: string;
  nodeKey: string | null;
  agent: TurnResult['agent'];
  usage: Usage;
  toolCalls: TurnResult['tool_calls'];
  files: FileChangeInfo[];
  error: { code: string; message: string } | null;
}

async function* walkGraph(
  req: TurnRequest,
  index: GraphIndex,
  start: GraphNode,
  currentStage: () => string,
  moveTo: (stage: string) => Generator<RuntimeEvent>,
  setAwaiting: (g: AwaitingGate | null) => void,
): AsyncGenerator<RuntimeEvent, WalkResult> {
  const { ports, pack } = req;
  const out: WalkResult = { reply: '', nodeKey: null, agent: null, usage: { input_tokens: 0, output_tokens: 0 }, toolCalls: [], files: [], error: null };
  const written = new Set<string>();
  let node: GraphNode | null = start;
  let visited = 0;
  let input = req.message;

  while (node) {
    if (req.signal.aborted) throw new TurnError('cancelled', 'The run was cancelled.');
    if (++visited > MAX_NODES_PER_TURN) {
      out.error = { code: 'node_limit', message: `A turn visits at most ${MAX_NODES_PER_TURN} nodes; the pack loops.` };
      return out;
    }
    out.nodeKey = node.node_key;
    yield { event: 'node', data: { node_key: node.node_key, type: node.type, stage_label: node.stage_label, state: 'started' } };

    if (node.type === 'gate') {
      const stage = currentStage();
      const after = nextAfter(index, node.node_key, { reply: out.reply, stage, files: [] });
      const i = pack.stages.indexOf(stage);
      const nextStage = after?.stage_label && after.stage_label !== stage ? after.stage_label : (pack.stages[i + 1] ?? null);
      const gate: AwaitingGate = { node_key: node.node_key, stage, next_stage: nextStage };
      setAwaiting(gate);
      await ports.saveState({ stage, awaiting_gate: gate });
      yield { event: 'node', data: { node_key: node.node_key, type: node.type, stage_label: node.stage_label, state: 'finished' } };
      yield { event: 'awaiting_gate', data: gate };
      return out;
    }

    if (node.type === 'agent') {
      if (node.agent_id == null) throw new TurnError('agent_missing', `Node ${node.node_key} names no agent.`);
      const agent = await ports.loadAgent(node.agent_id);
      if (!agent) throw new TurnError('agent_missing', `The agent of node ${node.node_key} no longer exists or is not visible.`);
      const { provider, name, model } = ports.provider(agent.model);
      yield { event: 'agent', data: { agent_id: agent.id, name: agent.name, role: agent.role, model: `${name}:${model}` } };
      out.agent = { id: agent.id, name: agent.name, role: agent.role };
      const stage = currentStage();
      const messages: ChatMessage[] = [...req.history, { role: 'user', content: input }];
      const loop = reactLoop({
        agent,
        model: agent.model,
        provider,
        modelName: model,
        system: buildSystemPrompt(req, agent, node, stage),
        messages,
        workspace: ports.workspace,
        written,
        signal: req.signal,
      });
      let step = await loop.next();
      while (!step.done) {
        yield step.value;
        step = await loop.next();
      }
      const r = step.value;
      out.reply = r.reply;
      out.usage.input_tokens += r.usage.input_tokens;
      out.usage.output_tokens += r.usage.output_tokens;
      out.toolCalls.push(...r.toolCalls);
      out.files.push(...r.files);
      if (r.error) {
        out.error = r.error;
        return out;
      }
      const artifact = typeof node.config?.artifact === 'string' ? node.config.artifact : null;
      if (artifact && r.reply.trim() && !written.has(artifact) && !ports.workspace.readOnly) {
        const change = await ports.workspace.write(artifact, r.reply);
        written.add(change.path);
        out.files.push(change);
        yield { event: 'files_changed', data: { files: [change] } };
      }
      input = `${req.message}\n\n[${agent.name} replied]\n${r.reply}`;
    }

    yield { event: 'node', data: { node_key: node.node_key, type: node.type, stage_label: node.stage_label, state: 'finished' } };
    // The workspace listing is only needed when a condition on the way out may look at files.
    const conditional = outgoingEdges(index, node.node_key).some((e) => e.condition);
    const files = conditional ? (await ports.workspace.list()).map((f) => f.path) : [];
    const next: GraphNode | null = nextAfter(index, node.node_key, { reply: out.reply, stage: currentStage(), files });
    if (next?.stage_label && next.stage_label !== currentStage() && pack.stages.includes(next.stage_label) && next.type !== 'gate') {
      yield* moveTo(next.stage_label);
      await ports.saveState({ stage: currentStage(), awaiting_gate: null });
    }
    node = next;
  }
  return out;
}
