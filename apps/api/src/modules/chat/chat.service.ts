/**
 * Starts turns and carries them to the end, detached from the HTTP request that asked for them:
 * resolves the project and pack, implements the runtime's ports with the real services, publishes
 * every event to the run hub, records history and the run's outcome, and emits `close` last.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { APP_CONFIG, isCluster, type AppConfig } from '../../platform/config/app-config';
import { isUuid } from '../../platform/database/db-id';
import { DomainError, invalid } from '../../platform/errors/domain-error';
import { AgentsService } from '../agents/agents.service';
import { TurnQueue } from '../cluster/turn-queue';
import { McpServersService } from '../mcp-servers/mcp-servers.service';
import type { AuthUser } from '../auth/user.entity';
import type { Project } from '../projects/project.entity';
import { ProjectsService } from '../projects/projects.service';
import { WorkspaceService } from '../projects/workspace.service';
import type { ChatMessage } from '../runtime/providers/provider';
import { RuntimeService } from '../runtime/runtime.service';
import { storableText } from '../runtime/storable';
import type { TurnPorts, TurnResult } from '../runtime/runtime.types';
import { TurnTelemetry } from '../telemetry/turn-telemetry';
import { WorkflowsService } from '../workflows/workflows.service';
import { type StageChange } from './message.entity';
import { advanceStageChange } from './stage-change';
import { errorInfo as errInfo } from '../../platform/logging/error-info';
import { ClusterTurns } from './cluster-turns';
import { RunAdmission, type AdmissionFacts } from './run-admission';
import { RunHub } from './run-hub';
import { recordTurn } from './turn-record';
import { Run } from './run.entity';
import { handedBack, type RerunStart, type StartedTurn, type TurnInput, type TurnLaunch } from './turn-launch';

export type { HandBack, RerunStart, StartedTurn, TurnInput, TurnLaunch } from './turn-launch';
import { sampleWorkspace } from './sample-workspace';

const HISTORY_FOR_CONTEXT = 20;
const OUTCOME_NOT_STORED = {
  code: 'outcome_not_stored',
  message:
    'The turn ended, but the database is unavailable so its outcome is not stored yet. It will be stored when the database is back: replay this run later.',
};
const DEMO_PACK = 'pdlc';

@Injectable()
export class ChatService {
  private readonly logger = new Logger('Chat');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runtime: RuntimeService,
    private readonly hub: RunHub,
    private readonly projects: ProjectsService,
    private readonly workspace: WorkspaceService,
    private readonly workflows: WorkflowsService,
    private readonly agents: AgentsService,
    private readonly admission: RunAdmission,
    private readonly mcpServers: McpServersService,
    private readonly telemetry: TurnTelemetry,
    private readonly queue: TurnQueue,
    private readonly cluster: ClusterTurns,
  ) {}

  /** A turn on a user's project (chat and stream). */
  async startProjectTurn(
    user: AuthUser,
    input: TurnInput,
    mode: 'chat' | 'stream',
    rerun?: RerunStart,
  ): Promise<StartedTurn> {
    if (!input.project_slug) throw invalid([{ field: 'project_slug', message: 'is required' }]);
    const bound = await this.projects.ensureBinding(user, input.project_slug, {
      pack_id: input.pack_id,
      domain: input.domain,
      stage: input.stage,
    });
    const project = bound.project;
    if (!bound.pack)
      throw invalid(
        [{ field: 'pack_id', message: 'this project has no pack yet: choose one with pack_id' }],
        'Choose a pack for this project first.',
      );
    const pack = await this.workflows.packForRuntime(user, bound.pack);
    const runId = randomUUID();
    // cluster mode (docs/decisions/cluster.md): a worker carries the turn; its job is queued in the
    // admitting transaction (after the workspace is restored, for a rerun that restores it)
    const queued = isCluster(this.config);
    const message = storableText(input.message ?? '');
    // One statement admits the turn (one per project, a cap per user: run-admission.ts) and, when
    // admitted, stores the run row and the user's history entry (when there is a message); it returns
    // what the admission read, with the recent history for the model's context (without this message).
    // The run's `input` is what a resume needs to start the turn again (run-recovery.service.ts).
    const admission = await this.admission.admit(project, input.multitask === 'enqueue', async (m, a) => {
      const [row]: Array<{ admission: AdmissionFacts }> = await m.query(
        `WITH a AS (SELECT * FROM turn_admission($2, $3, $11, ${HISTORY_FOR_CONTEXT})),
            r AS (INSERT INTO runs (id, owner_id, project_id, workflow_id, mode, state, stage, input, rerun_of)
              SELECT $1, $2, $3, $4, $5, 'running', a.stage,
                jsonb_build_object('stage', coalesce(a.stage, $6::varchar), 'awaiting_gate', a.awaiting_gate,
                  'advance', $9::boolean, 'node_key', $8::varchar),
                $10
              FROM a WHERE a.admitted RETURNING id),
            um AS (INSERT INTO messages (project_id, run_id, role, content, stage) SELECT $3, r.id, 'user', $7, a.stage FROM r, a WHERE $7 <> '' OR $9)
       SELECT row_to_json(a) AS admission FROM a`,
        [
          runId,
          user.id,
          project.id,
          pack.id,
          mode,
          input.stage ?? pack.stages[0],
          message.trim() ? message : '',
          input.node_key ?? null,
          // an Advance's user entry is stored even without a message: it records the stage move
          !!input.advance,
          rerun?.rerunOf ?? null,
          a.maxRunning,
        ],
      );
      if (row?.admission.admitted && queued) await this.cluster.queued(m, runId, !rerun?.beforeRun);
      return row?.admission;
    });
    if (rerun?.beforeRun) {
      try {
        await rerun.beforeRun(runId);
        if (queued) await this.queue.enqueue(this.ds, runId);
      } catch (e) {
        // the admitted run never started: it ends failed, so the project takes turns again
        await this.ds.query(
          `UPDATE runs SET state = 'error', error = $2, finished_at = now() WHERE id = $1 AND state = 'running'`,
          [runId, JSON.stringify({ code: 'rerun_failed', message: 'The workspace could not be restored.' })],
        );
        throw e;
      }
    }
    if (queued) {
      // the synchronous API waits for the worker to end the turn; a stream never asks
      const turn = { runId, project, pack } as StartedTurn;
      let result: Promise<TurnResult> | undefined;
      Object.defineProperty(turn, 'result', { get: () => (result ??= this.cluster.awaitResult(runId)) });
      return turn;
    }
    const ports = this.projectPorts(user, project, runId);
    const stage = project.stage ?? input.stage ?? pack.stages[0];
    const history: ChatMessage[] =
      rerun?.history ?? admission.recent.map((m) => ({ role: m.role, content: m.content }));
    const result = this.execute({
      runId,
      ownerId: user.id,
      project,
      pack,
      ports,
      history,
      input,
      message,
      stage,
      awaitingGate: project.awaiting_gate ?? null,
    });
    return { runId, project, pack, result };
  }

  /** The runtime's ports on a user's project; every step of the turn is checkpointed (durable runs). */
  projectPorts(user: AuthUser, project: Project, runId: string): TurnPorts {
    return {
      loadAgent: (id) => this.agents.resolveForRuntime(user, id),
      saveState: (s) => this.projects.saveState(project.id, s),
      workspace: this.workspace.forProject(project.id, runId),
      provider: (m) => this.runtime.providerFor(m),
      checkpoint: (step, now) => this.hub.checkpoint(runId, step, now),
      externalTools: this.mcpServers.toolsFor(user),
    };
  }

  /** A demo turn: the stored system pack, the server's default model, a read-only sample workspace. */
  async startDemoTurn(input: TurnInput, mode: 'demo' | 'stream', client: string): Promise<StartedTurn> {
    const release = await this.admission.acquireDemo(client);
    try {
      const turn = await this.demoTurn(input, mode);
      turn.result.finally(release).catch(() => undefined);
      return turn;
    } catch (e) {
      release();
      throw e;
    }
  }

  private async demoTurn(input: TurnInput, mode: 'demo' | 'stream'): Promise<StartedTurn> {
    const system = (await this.workflows.listVisible(null)).find((w) => w.slug === DEMO_PACK && w.is_system);
    if (!system) throw new DomainError('unavailable', 'The demo pack is not available.');
    if (input.domain && input.domain !== system.domain)
      throw invalid([{ field: 'domain', message: `the demo runs the ${system.domain} pack` }]);
    if (input.stage && !system.stages.includes(input.stage))
      throw invalid([{ field: 'stage', message: `must be one of ${system.stages.join(', ')}` }]);
    const pack = await this.workflows.getPackForRuntime(null, system.id);
    const runId = randomUUID();
    const ports: TurnPorts = {
      // system agents only, always on the server's default model
      loadAgent: async (id) => {
        const a = await this.agents.resolveForRuntime(null, id);
        // a demo run has no checkpoints to wait on: no call of it stops for approval
        return a ? { ...a, model: null, tools_requiring_approval: [] } : null;
      },
      saveState: async () => undefined,
      workspace: sampleWorkspace(),
      provider: () => this.runtime.providerFor(null),
    };
    await this.ds.getRepository(Run).insert({
      id: runId,
      owner_id: null,
      project_id: null,
      workflow_id: pack.id,
      mode,
      state: 'running',
      stage: input.stage ?? pack.stages[0],
      usage: { input_tokens: 0, output_tokens: 0 },
    });
    const stage = input.stage ?? pack.stages[0];
    const result = this.execute({
      runId,
      ownerId: null,
      project: null,
      pack,
      ports,
      history: [],
      input: { ...input, stage },
      message: storableText(input.message ?? ''),
      stage,
      awaitingGate: null,
    });
    return { runId, project: null, pack, result };
  }

  /** Carries a turn to its end, detached from any request; resolves with its result once it is recorded. */
  execute(launch: TurnLaunch): Promise<TurnResult> {
    const { runId, ownerId, project, pack, ports, history, input, message, resume } = launch;
    const controller = new AbortController();
    this.hub.start(
      runId,
      ownerId,
      controller,
      resume
        ? { seq: resume.seq, steps: resume.steps.length, stored: resume.stored }
        : launch.startAfter
          ? { seq: launch.startAfter, steps: 0, stored: launch.startAfter }
          : undefined,
    );
    if (resume) {
      // the stream goes on after the stored seqs; events after the last checkpoint are superseded
      const used = ports.provider(null);
      this.hub.publish(runId, 'status', {
        run_id: runId,
        state: 'resumed',
        provider: used.name,
        model: used.model,
        attempt: resume.attempt,
        drop_after_seq: resume.checkpointSeq,
      });
    }
    const timer = setTimeout(() => controller.abort({ code: 'turn_timeout' }), this.config.turnTimeoutMs);
    timer.unref();
    const run = async (): Promise<TurnResult> => {
      let r: TurnResult;
      let doneSent = false;
      let moved: StageChange | null = null;
      try {
        // observed for metrics and traces (modules/telemetry): events and result pass through unchanged
        const gen = this.telemetry.run((req) => this.runtime.run(req), {
          run_id: runId,
          message,
          advance: !!input.advance,
          node_key: input.node_key ?? null,
          project_slug: project?.slug ?? null,
          pack,
          stage: launch.stage,
          awaiting_gate: launch.awaitingGate,
          history,
          ports,
          signal: controller.signal,
          ...(resume ? { resume: { steps: resume.steps } } : {}),
        });
        let step = await gen.next();
        while (!step.done) {
          if (handedBack(controller.signal)) return await this.abandon(launch, controller.signal, gen);
          this.hub.publish(runId, step.value.event, step.value.data);
          if (input.advance && !moved) moved = advanceStageChange(project, step.value);
          if (step.value.event === 'done') doneSent = true;
          step = await gen.next();
        }
        if (handedBack(controller.signal)) return await this.abandon(launch, controller.signal);
        r = step.value;
      } catch (err) {
        if (handedBack(controller.signal)) return await this.abandon(launch, controller.signal);
        // The runtime reports turn failures as events; an exception here is a bug (or the database
        // failing under a port): logged with its stack and cause, reported once as `internal`.
        this.logger.error({ err: errInfo(err), run_id: runId }, 'turn failed unexpectedly');
        r = emptyResult('error', project?.stage ?? pack.stages[0], {
          code: 'internal',
          message: 'The turn failed unexpectedly.',
        });
        if (!doneSent) {
          this.hub.publish(runId, 'error', r.error);
          this.hub.publish(runId, 'done', { run_id: runId, reply: '', usage: r.usage, state: 'error' });
        }
      }
      const result = r;
      const stored = await this.hub.complete(
        runId,
        (events, steps) => recordTurn(this.ds, runId, project, result, events, steps, moved, launch.workerId ?? null),
        {
          waitMs: this.config.runRecordWaitMs,
          notStored: OUTCOME_NOT_STORED,
        },
      );
      // the synchronous API answers 503 for an outcome it could not store (the stream got the same error)
      return stored === 'stored' || r.error ? r : { ...r, error: OUTCOME_NOT_STORED };
    };
    return run().finally(() => clearTimeout(timer));
  }

  /**
   * Cluster mode: the worker stops carrying the run without ending it (shutting down, or its lease was
   * lost): nothing more is stored, and on a shutdown the run goes back to the queue for another worker.
   */
  private async abandon(
    launch: TurnLaunch,
    signal: AbortSignal,
    gen?: { return(v: never): Promise<unknown> },
  ): Promise<TurnResult> {
    await gen?.return(undefined as never).catch(() => undefined);
    const requeue = !!launch.workerId && !!handedBack(signal)?.requeue;
    // handed back: what it streamed is stored first, so whoever resumes it numbers its events after them
    await this.hub.abandon(launch.runId, requeue);
    if (requeue) await this.queue.handBack(launch.runId, launch.workerId!);
    return emptyResult('interrupted', launch.stage, {
      code: 'handed_back',
      message: 'The worker stopped carrying this run.',
    });
  }

  async cancel(user: AuthUser, runId: string) {
    const run = await this.ownedRun(user, runId);
    if (isCluster(this.config) && !this.hub.isLive(runId)) {
      await this.cluster.cancel(run);
      return { run_id: runId, state: 'cancelling' };
    }
    if (run.state === 'running' && this.hub.isSettling(runId)) {
      throw new DomainError('run.not_running', `Run ${runId} has ended; its outcome is being stored.`);
    }
    if (run.state !== 'running' || !this.hub.cancel(runId))
      throw new DomainError('run.not_running', `Run ${runId} is not running (state: ${run.state}).`);
    return { run_id: runId, state: 'cancelling' };
  }

  /** A run visible to the caller: their own, or (owner null) a demo run. 404 otherwise. */
  async findRunFor(user: AuthUser | null, runId: string): Promise<Run> {
    const run = isUuid(runId) ? await this.ds.getRepository(Run).findOneBy({ id: runId }) : null;
    if (!run || (run.owner_id !== null && run.owner_id !== user?.id))
      throw new DomainError('not_found', `Run ${runId} not found`);
    return run;
  }

  private async ownedRun(user: AuthUser, runId: string) {
    const run = await this.findRunFor(user, runId);
    if (run.owner_id !== user.id) throw new DomainError('not_found', `Run ${runId} not found`);
    return run;
  }
}

/** The result of a turn that produced nothing: it failed outside the runtime, or its worker let it go. */
function emptyResult(state: TurnResult['state'], stage: string, error: NonNullable<TurnResult['error']>): TurnResult {
  return {
    state,
    reply: '',
    stage,
    awaiting_gate: null,
    node_key: null,
    agent: null,
    tool_calls: [],
    files_changed: [],
    usage: { input_tokens: 0, output_tokens: 0 },
    error,
  };
}
