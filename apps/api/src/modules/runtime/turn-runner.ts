/**
 * One turn through a pack (docs/API.md): advance, pick the node, walk agent / branch / gate nodes, move
 * stages, write artifacts — at most 25 nodes. Yields every stream event except `close` (the chat layer
 * adds it after persisting the run) and returns the TurnResult.
 *
 * Nothing here throws for a turn failure: a failure becomes one `error` event, then the final
 * `workflow` and `done` events, exactly like a success ends. Event order of a turn:
 *
 *   status → pack → workflow
 *   [advance]   stage
 *   [per node]  node(started) → [agent: agent → content/tool_call/tool_result/files_changed … →
 *               files_changed (artifact)] → node(finished) → [stage, when the next node is in another stage]
 *   [gate]      node(started) → node(finished) → awaiting_gate
 *   [failure]   error
 *   workflow → done
 */
import {
  entryNode,
  indexGraph,
  nextAfter,
  outgoingEdges,
  type GraphIndex,
  type GraphNode,
} from '@service/workflow-graph';
import { ProviderError, type ChatMessage } from './providers/provider';
import { buildSystemPrompt, LoopAborted, reactLoop, type Tally } from './react-loop';
import { AwaitingApproval } from './approval';
import type {
  AwaitingGate,
  PendingApproval,
  ResolvedAgent,
  RuntimeEvent,
  TurnRequest,
  TurnResult,
  Usage,
} from './runtime.types';
import { StepLog } from './step-log';
import { artifactOf, storeArtifact } from './turn-artifact';
import { classifyFailure, providerMessage, TurnFailure } from './turn-outcome';

export { TurnFailure } from './turn-outcome';

/** A turn visits at most this many nodes (docs/API.md). */
export const MAX_NODES_PER_TURN = 25;

export interface TurnDeps {
  /** The server's default model, shown in the first `status` event (default: what `ports.provider(null)` names). */
  server?: { provider: string; model: string };
  /** Secret values (API keys) scrubbed from every error message, besides the agent's own key. */
  secrets?: readonly string[];
}

export async function* runTurn(req: TurnRequest, deps: TurnDeps = {}): AsyncGenerator<RuntimeEvent, TurnResult> {
  return yield* new Turn(req, deps).run();
}

class Turn {
  private readonly stages: string[];
  private readonly index: GraphIndex;
  private stage: string;
  private awaiting: AwaitingGate | null;
  private reply = '';
  private nodeKey: string | null = null;
  private replyNodeKey: string | null = null;
  /** agents loaded by the status event's look-ahead, reused by the walk */
  private readonly agents = new Map<number, Promise<ResolvedAgent | null>>();
  private agent: TurnResult['agent'] = null;
  private readonly tally: Tally = { usage: { input_tokens: 0, output_tokens: 0 }, tool_calls: [], files: [] };
  private readonly secrets: string[];
  /** checkpoints: recorded as steps complete, or replayed when the run is resumed (step-log.ts) */
  private readonly log: StepLog;
  /** nodes visited so far (a visit's number keys its idempotent writes) */
  private visits = 0;

  constructor(
    private readonly req: TurnRequest,
    private readonly deps: TurnDeps,
  ) {
    this.stages = [...req.pack.stages];
    this.index = indexGraph({ nodes: req.pack.nodes, edges: req.pack.edges });
    this.stage = this.stages.includes(req.stage) ? req.stage : (this.stages[0] ?? req.stage);
    this.awaiting = req.awaiting_gate;
    this.secrets = [...(deps.secrets ?? [])];
    this.log = new StepLog(req.resume?.steps ?? [], req.ports.checkpoint, !!req.resume);
  }

  /** The turn's events; while a resumed turn replays its recorded steps they are muted (stored already). */
  async *run(): AsyncGenerator<RuntimeEvent, TurnResult> {
    const turn = this.turn();
    for (let step = await turn.next(); ; step = await turn.next()) {
      if (step.done) return step.value;
      if (!this.log.replaying) yield step.value;
    }
  }

  private async *turn(): AsyncGenerator<RuntimeEvent, TurnResult> {
    const { req } = this;
    const { pack } = req;
    const used = await this.firstModel();
    yield {
      event: 'status',
      data: { run_id: req.run_id, state: 'running', provider: used.provider, model: used.model },
    };
    yield {
      event: 'pack',
      data: { pack_id: pack.id, slug: pack.slug, name: pack.name, domain: pack.domain, stages: this.stages },
    };
    yield this.workflowEvent();

    let error: TurnResult['error'] = null;
    let state: TurnResult['state'] = 'done';
    let approval: PendingApproval | null = null;
    try {
      this.checkAbort();
      if (req.advance) yield* this.advance();
      if (req.message.trim()) {
        const node = this.pickNode();
        if (node.stage_label && node.stage_label !== this.stage && this.stages.includes(node.stage_label))
          yield* this.moveTo(node.stage_label);
        yield* this.walk(node);
      } else if (!req.advance) {
        throw new TurnFailure(
          'empty_message',
          'The message is empty: write a message, or set advance to move to the next stage.',
        );
      }
    } catch (e) {
      // a stopped or failed agent keeps what it had said so far (history shows it, marked)
      if (this.tally.partial !== undefined) this.reply = this.tally.partial;
      this.log.stopReplay();
      if (e instanceof AwaitingApproval && !this.req.signal.aborted) {
        state = 'awaiting_approval';
        approval = e.pending;
        yield { event: 'approval', data: approval };
      } else {
        ({ state, error } = classifyFailure(e, this.req.signal, this.req.run_id, this.secrets));
        yield { event: 'error', data: error };
      }
    }
    this.log.stopReplay();
    yield this.workflowEvent();
    const usage: Usage = { ...this.tally.usage };
    yield { event: 'done', data: { run_id: req.run_id, reply: this.reply, usage, state } };
    return {
      state,
      reply: this.reply,
      stage: this.stage,
      awaiting_gate: this.awaiting,
      node_key: this.nodeKey,
      reply_node_key: this.replyNodeKey,
      agent: this.agent,
      tool_calls: this.tally.tool_calls,
      files_changed: this.tally.files,
      usage,
      error,
      approval,
    };
  }

  /**
   * The provider and model the first `status` event names: those of the agent the turn will run first
   * (its own model, else the server default), looked up ahead; the server default when the turn starts
   * elsewhere (an advance, a gate) or the look-ahead fails (the walk reports that failure itself).
   */
  private async firstModel(): Promise<{ provider: string; model: string }> {
    const fallback = this.deps.server ?? this.portDefault();
    const { req } = this;
    if (req.advance || !req.message.trim()) return fallback;
    try {
      const node = this.pickNode();
      if (node.type !== 'agent' || node.agent_id == null) return fallback;
      const agent = await this.loadAgent(node.agent_id);
      if (!agent) return fallback;
      const chosen = req.ports.provider(agent.model);
      return { provider: chosen.name, model: chosen.model };
    } catch {
      return fallback;
    }
  }

  private loadAgent(id: number): Promise<ResolvedAgent | null> {
    let p = this.agents.get(id);
    if (!p) {
      p = this.req.ports.loadAgent(id);
      p.catch(() => this.agents.delete(id));
      this.agents.set(id, p);
    }
    return p;
  }

  private portDefault() {
    const { name, model } = this.req.ports.provider(null);
    return { provider: name, model };
  }

  private workflowEvent(): RuntimeEvent {
    const { req } = this;
    return {
      event: 'workflow',
      data: {
        project_slug: req.project_slug,
        domain: req.pack.domain,
        stage: this.stage,
        pack_id: req.pack.id,
        awaiting_gate: this.awaiting,
      },
    };
  }

  private checkAbort() {
    if (this.req.signal.aborted) throw new LoopAborted();
  }

  /** Moves the project to another stage: persists it (any pending gate is settled by the move), then says so. */
  private async *moveTo(to: string): AsyncGenerator<RuntimeEvent> {
    const from = this.stage;
    this.stage = to;
    this.awaiting = null;
    if (!this.log.peek('stage')) await this.req.ports.saveState({ stage: to, awaiting_gate: null });
    yield { event: 'stage', data: { from, to, index: this.stages.indexOf(to), stages: this.stages } };
    await this.log.complete({ step: 'stage', to });
  }

  /**
   * Advance approves the current stage's gate (pending, or not reached yet) and moves to the next stage:
   * the stage the pending gate leads to when it leads forward, else the next stage in the pack's order.
   */
  private async *advance(): AsyncGenerator<RuntimeEvent> {
    const i = this.stages.indexOf(this.stage);
    const gate = this.awaiting && this.awaiting.stage === this.stage ? this.awaiting : null;
    const target = gate?.next_stage && this.stages.indexOf(gate.next_stage) > i ? gate.next_stage : this.stages[i + 1];
    if (!target) {
      throw new TurnFailure(
        'last_stage',
        `"${this.stage}" is the last stage of the pack "${this.req.pack.name}": there is no next stage to advance to.`,
      );
    }
    yield* this.moveTo(target);
  }

  private pickNode(): GraphNode {
    const { req } = this;
    if (req.node_key) {
      const node = this.index.nodes.get(req.node_key);
      if (!node) throw new TurnFailure('unknown_node', `The pack "${req.pack.name}" has no node "${req.node_key}".`);
      return node;
    }
    const node = entryNode(this.index, this.stage);
    if (!node)
      throw new TurnFailure(
        'no_entry_node',
        `The stage "${this.stage}" of the pack "${req.pack.name}" has no agent node to run.`,
      );
    return node;
  }

  private async *walk(start: GraphNode): AsyncGenerator<RuntimeEvent> {
    let node: GraphNode | null = start;
    let visited = 0;
    let input = this.req.message;
    while (node) {
      this.checkAbort();
      // a replayed walk goes where the run went (a branch condition may read files changed since)
      const recorded = this.log.peek('node');
      if (recorded) node = this.index.nodes.get(recorded.node_key) ?? node;
      if (++visited > MAX_NODES_PER_TURN) {
        throw new TurnFailure(
          'node_limit',
          `The turn stopped after visiting ${MAX_NODES_PER_TURN} nodes (the limit per turn); the graph probably loops.`,
        );
      }
      this.nodeKey = node.node_key;
      const info = { node_key: node.node_key, type: node.type, stage_label: node.stage_label };
      yield { event: 'node', data: { ...info, state: 'started' } };
      this.visits = visited;
      await this.log.complete({ step: 'node', node_key: node.node_key });

      if (node.type === 'gate') {
        const gate = await this.gate(node);
        yield { event: 'node', data: { ...info, state: 'finished' } };
        yield { event: 'awaiting_gate', data: gate };
        return;
      }
      if (node.type === 'agent') {
        const { agent, reply } = yield* this.runAgent(node, input);
        input = `${this.req.message}\n\n---\n${agent.name} (node ${node.node_key}) replied:\n${reply}`;
      }
      yield { event: 'node', data: { ...info, state: 'finished' } };

      const next = nextAfter(this.index, node.node_key, await this.conditionContext(node.node_key));
      if (
        next &&
        next.type !== 'gate' &&
        next.stage_label &&
        next.stage_label !== this.stage &&
        this.stages.includes(next.stage_label)
      ) {
        yield* this.moveTo(next.stage_label);
      }
      node = next;
    }
  }

  /** {reply, stage, files} for the conditions on the way out; the workspace is listed only when needed. */
  private async conditionContext(nodeKey: string) {
    const conditional = outgoingEdges(this.index, nodeKey).some(
      (e) => e.condition !== null && e.condition.trim() !== '',
    );
    const files = conditional ? (await this.req.ports.workspace.list()).map((f) => f.path) : [];
    return { reply: this.reply, stage: this.stage, files };
  }

  /** A gate stops the turn and records itself in the project state. */
  private async gate(node: GraphNode): Promise<AwaitingGate> {
    const i = this.stages.indexOf(this.stage);
    const after = nextAfter(this.index, node.node_key, await this.conditionContext(node.node_key));
    const leadsTo = after?.stage_label && this.stages.indexOf(after.stage_label) > i ? after.stage_label : null;
    const gate: AwaitingGate = {
      node_key: node.node_key,
      stage: this.stage,
      next_stage: leadsTo ?? this.stages[i + 1] ?? null,
    };
    this.awaiting = gate;
    await this.req.ports.saveState({ stage: this.stage, awaiting_gate: gate });
    return gate;
  }

  private async *runAgent(
    node: GraphNode,
    input: string,
  ): AsyncGenerator<RuntimeEvent, { agent: ResolvedAgent; reply: string }> {
    const { req } = this;
    if (node.agent_id == null)
      throw new TurnFailure('agent_missing', `The agent node "${node.node_key}" names no agent.`);
    const agent = await this.loadAgent(node.agent_id);
    if (!agent)
      throw new TurnFailure(
        'agent_missing',
        `The agent of node "${node.node_key}" (id ${node.agent_id}) does not exist or is not visible to you.`,
      );
    if (agent.model?.api_key) this.secrets.push(agent.model.api_key);
    const chosen = req.ports.provider(agent.model);
    yield {
      event: 'agent',
      data: { agent_id: agent.id, name: agent.name, role: agent.role, model: chosen.model, provider: chosen.name },
    };
    this.agent = { id: agent.id, name: agent.name, role: agent.role };
    const artifact = artifactOf(node);
    const messages: ChatMessage[] = [...req.history, { role: 'user', content: input }];
    this.tally.partial = '';
    this.replyNodeKey = node.node_key;
    let result;
    try {
      result = yield* reactLoop({
        agent,
        provider: chosen.provider,
        model: chosen.model,
        modelRecord: agent.model,
        system: buildSystemPrompt(agent, {
          stage: this.stage,
          stages: this.stages,
          pack: req.pack,
          node,
          artifact,
          readOnly: req.ports.workspace.readOnly,
        }),
        messages,
        workspace: req.ports.workspace,
        signal: req.signal,
        tally: this.tally,
        log: this.log,
        keyPrefix: `${req.run_id}:${this.visits}`,
        externalTools: req.ports.externalTools,
      });
    } catch (e) {
      if (e instanceof ProviderError && !req.signal.aborted)
        throw new TurnFailure(e.code, providerMessage(e, chosen.name, chosen.model));
      throw e;
    }
    this.reply = result.reply;
    this.replyNodeKey = node.node_key;
    this.tally.partial = undefined;
    if (result.error) throw new TurnFailure(result.error.code, result.error.message);

    const change = await storeArtifact(
      req.ports.workspace,
      this.log.resumed,
      artifact,
      result.reply,
      result.written,
      `${req.run_id}:${this.visits}.artifact`,
    );
    if (change) {
      this.tally.files.push(change);
      yield { event: 'files_changed', data: { files: [change] } };
    }
    return { agent, reply: result.reply };
  }
}
