/**
 * Runs left in flight (docs/decisions/runtime.md, "Durable runs"). At boot, with RESUME_INTERRUPTED=auto
 * (the default), each run a crash left `running` goes on under the same run id from its last checkpoint
 * (runtime/step-log.ts): finished model and tool calls are not made again, its stream goes on with the
 * next seqs after a `status {state: "resumed", drop_after_seq}` event. With `off` (and for demo runs)
 * it is marked `interrupted`. `POST /agent/runs/{id}/resume` resumes an `interrupted` run on demand.
 * A run that cannot resume (its pack is gone, MAX_RESUME_ATTEMPTS starts) ends `error` with
 * `resume_failed` and a reason — never stuck `running`.
 *
 * Cluster mode (docs/decisions/cluster.md): no process owns the runs in flight, so nothing happens at
 * boot; a dead worker's runs are taken over by another worker (turn-worker.ts), which starts them here
 * (`carry`), and a resume asked for by a user or an approval goes through the queue.
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryFailedError } from 'typeorm';
import { APP_CONFIG, isCluster, type AppConfig } from '../../platform/config/app-config';
import { ConfigError } from '../../platform/config/environment.schema';
import { DomainError } from '../../platform/errors/domain-error';
import { errorInfo } from '../../platform/logging/error-info';
import type { AuthUser } from '../auth/user.entity';
import { Project } from '../projects/project.entity';
import type { ChatMessage } from '../runtime/providers/provider';
import type { Step } from '../runtime/step-log';
import { TurnQueue } from '../cluster/turn-queue';
import type { TurnResult } from '../runtime/runtime.types';
import { WorkflowsService } from '../workflows/workflows.service';
import { ChatService } from './chat.service';
import { RESUME_SEQ_GAP } from './resume-gap';
import { unfinishedTurn } from './run-admission';
import { endStoredRun, type RunEnding } from './run-ending';
import { RunFanout } from './run-fanout';
import { RunHub } from './run-hub';
import { Run, type RunInput } from './run.entity';

export { RESUME_SEQ_GAP };

/** A run is started at most this many times (the first start and its resumes). */
export const MAX_RESUME_ATTEMPTS = 3;
const HISTORY_FOR_CONTEXT = 20;
const INTERRUPTED: RunEnding = {
  state: 'interrupted',
  error: { code: 'interrupted', message: 'The server restarted while this run was in flight.' },
  note: { state: 'interrupted', content: 'This run was interrupted by a server restart before it finished.' },
};

/** A run started again: its turn goes on detached. */
export interface Carried {
  result: Promise<TurnResult>;
}

@Injectable()
export class RunRecovery implements OnApplicationBootstrap {
  private readonly logger = new Logger('RunRecovery');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly chat: ChatService,
    private readonly hub: RunHub,
    private readonly workflows: WorkflowsService,
    private readonly queue: TurnQueue,
    private readonly fanout: RunFanout,
  ) {}

  async onApplicationBootstrap() {
    if (isCluster(this.config)) return;
    // a single process on a cluster's database would take the workers' runs in flight for its own
    const [{ live }]: Array<{ live: string }> = await this.ds.query(
      'SELECT count(*) AS live FROM cluster_workers WHERE beat_at > now() - make_interval(secs => $1)',
      [this.config.workerDeadAfterMs / 1000],
    );
    if (Number(live))
      throw new ConfigError(
        `this database is served by a cluster (${live} live worker(s)): start this process with ROLE=api or ROLE=worker, or stop the cluster first`,
      );
    const stale = await this.ds.getRepository(Run).find({ where: { state: 'running' } });
    let resumed = 0;
    for (const run of stale) {
      if (this.config.resumeInterrupted === 'auto' && resumable(run)) {
        if (await this.resume(run)) resumed++;
      } else await this.end(run, INTERRUPTED);
    }
    if (resumed) this.logger.warn(`resumed ${resumed} run(s) left in flight by a restart`);
    if (stale.length - resumed)
      this.logger.warn(`${stale.length - resumed} run(s) left in flight by a restart could not be resumed`);
  }

  /** POST /agent/runs/{id}/resume: an `interrupted` run of the caller's goes on under the same id. */
  async resumeOnDemand(user: AuthUser, runId: string) {
    const run = await this.chat.findRunFor(user, runId);
    if (run.owner_id !== user.id) throw new DomainError('not_found', `Run ${runId} not found`);
    // cluster mode: a running run is queued or carried by a worker (a dead one's runs are taken over)
    if (run.state === 'running' && (isCluster(this.config) || this.hub.isLive(runId) || this.hub.isSettling(runId)))
      throw new DomainError('run.not_resumable', `Run ${runId} is running.`);
    if (run.state !== 'interrupted' && run.state !== 'running')
      throw new DomainError('run.not_resumable', `Run ${runId} cannot be resumed (state: ${run.state}).`);
    if (!resumable(run))
      throw new DomainError('run.not_resumable', `Run ${runId} cannot be resumed: it recorded no checkpoints.`);
    if (run.state === 'interrupted') await this.reopen(run);
    if (isCluster(this.config)) {
      await this.queue.enqueue(this.ds, run.id);
      return { run_id: runId, state: 'running', attempts: run.attempts + 1 };
    }
    if (!(await this.resume(run))) {
      const ended = await this.ds.getRepository(Run).findOneByOrFail({ id: runId });
      throw new DomainError('run.not_resumable', `Run ${runId} could not be resumed: ${ended.error?.message ?? ''}`);
    }
    return { run_id: runId, state: 'running', attempts: run.attempts + 1 };
  }

  /** An interrupted run becomes `running` again (one per project: 409 when another turn runs there). */
  private async reopen(run: Run) {
    try {
      await this.ds.transaction(async (m) => {
        const [, n]: [unknown, number] = await m.query(
          `UPDATE runs SET state = 'running', error = NULL, finished_at = NULL WHERE id = $1 AND state = 'interrupted'`,
          [run.id],
        );
        if (!n) throw new DomainError('run.not_resumable', `Run ${run.id} is no longer interrupted.`);
        // its history note ("interrupted") gives way to the entry the resumed turn writes
        await m.query(`DELETE FROM messages WHERE run_id = $1 AND role = 'assistant'`, [run.id]);
      });
    } catch (e) {
      if (e instanceof QueryFailedError && (e as unknown as { code?: string }).code === '23505') {
        // another unfinished turn (running, or awaiting approval) holds the project
        const [p]: Array<{ slug: string }> = await this.ds.query('SELECT slug FROM projects WHERE id = $1', [
          run.project_id,
        ]);
        const other = p && (await unfinishedTurn(this.ds, { id: run.project_id as number, slug: p.slug }));
        if (other) throw other;
      }
      throw e;
    }
  }

  /** A run back to `running` after a decision on its pending call (run-approvals.service.ts) goes on. */
  async resumeRun(run: Run): Promise<boolean> {
    if (!resumable(run)) return this.fail(run, 'it recorded no input');
    if (!isCluster(this.config)) return this.resume(run);
    await this.queue.enqueue(this.ds, run.id);
    return true;
  }

  /**
   * Cluster mode: a worker (`workerId`) claimed the run. A run never started begins its turn; one that
   * ran before (an approval's decision, a resume asked for, or `takeover` of a dead worker's run) resumes
   * from its checkpoints above the seq gap. Null when it could not start (it has been ended).
   */
  async carry(run: Run, workerId: string, takeover: boolean): Promise<Carried | null> {
    if (!resumable(run)) {
      await this.fail(run, 'it recorded no input', takeover);
      return null;
    }
    return this.start(run, { workerId, fresh: !takeover });
  }

  /**
   * Starts the run again from its checkpoints; false when it cannot be (then it has been ended). The
   * turn itself goes on detached, like any turn.
   */
  private async resume(run: Run & { input: RunInput; owner_id: number; project_id: number }): Promise<boolean> {
    const started = await this.start(run, {});
    if (!started) return false;
    started.result.catch((err) => this.logger.error({ err: errorInfo(err), run_id: run.id }, 'resumed run failed'));
    return true;
  }

  /**
   * Starts the run from what is stored: its input, the history before it and its checkpoints. `fresh`: a
   * run nothing has started yet begins like a new turn (cluster mode: the first claim of a queued run).
   */
  private async start(
    run: Run & { input: RunInput; owner_id: number; project_id: number },
    opts: { workerId?: string; fresh?: boolean },
  ): Promise<Carried | null> {
    try {
      // independent reads side by side (a worker's pickup waits for them: docs/performance.md, scenario 8)
      const [[user], project, [state], recent] = await Promise.all([
        this.ds.query<AuthUser[]>('SELECT id, username, is_admin FROM users WHERE id = $1', [run.owner_id]),
        this.ds.getRepository(Project).findOneBy({ id: run.project_id }),
        this.ds.query<Array<{ seq: number; checkpoint_seq: number; steps: Step[]; message: string | null }>>(
          `SELECT (SELECT coalesce(max(seq), 0) FROM run_events WHERE run_id = $1) AS seq,
                  (SELECT coalesce(max(event_seq), 0) FROM run_checkpoints WHERE run_id = $1) AS checkpoint_seq,
                  (SELECT coalesce(jsonb_agg(data ORDER BY step), '[]') FROM run_checkpoints WHERE run_id = $1) AS steps,
                  (SELECT content FROM messages WHERE run_id = $1 AND role = 'user' LIMIT 1) AS message`,
          [run.id],
        ),
        this.historyBefore(run),
      ]);
      if (!user || !project) return this.failed(run, 'its project no longer exists', opts);
      const pack = run.workflow_id
        ? await this.workflows.getPackForRuntime(user, run.workflow_id).catch(() => null)
        : null;
      if (!pack) return this.failed(run, 'its pack was deleted', opts);
      // nothing ran yet (no step; no event but its `queued` status): the turn begins, as in the process
      // that admitted it, after that event
      const fresh = !!opts.fresh && !state.steps.length && Number(state.seq) <= 1;
      // a start after a decision on a pending tool call (per-tool approval) is not a retry
      const decisions = state.steps.filter((s) => s.step === 'decision').length;
      if (!fresh && run.attempts - decisions >= MAX_RESUME_ATTEMPTS)
        return this.failed(run, `it was started ${run.attempts - decisions} times without finishing`, opts);
      const attempts = fresh ? run.attempts : await this.countAttempt(run.id);
      const result = this.chat.execute({
        runId: run.id,
        ownerId: user.id,
        project,
        pack,
        ports: this.chat.projectPorts(user, project, run.id),
        history: recent,
        input: { advance: run.input.advance, node_key: run.input.node_key ?? undefined },
        message: state.message ?? '',
        stage: run.input.stage,
        awaitingGate: run.input.awaiting_gate,
        workerId: opts.workerId,
        startAfter: fresh ? Number(state.seq) : undefined,
        ...(fresh
          ? {}
          : {
              resume: {
                steps: state.steps,
                seq: Number(state.seq) + RESUME_SEQ_GAP,
                stored: Number(state.seq),
                checkpointSeq: Number(state.checkpoint_seq),
                attempt: attempts,
              },
            }),
      });
      if (!fresh) this.logger.log({ run_id: run.id, steps: state.steps.length, attempt: attempts }, 'run resumed');
      // wrapped: an async function would otherwise wait for the whole turn
      return { result };
    } catch (err) {
      this.logger.error({ err: errorInfo(err), run_id: run.id }, 'could not resume the run');
      return this.failed(run, 'it could not be started again', opts);
    }
  }

  private async countAttempt(runId: string): Promise<number> {
    const [[row]]: [[{ attempts: number }], number] = await this.ds.query(
      'UPDATE runs SET attempts = attempts + 1 WHERE id = $1 RETURNING attempts',
      [runId],
    );
    return row.attempts;
  }

  /**
   * The model's context: the project's history before this run (later turns, after an interruption, are
   * not its context); for a rerun, the history before the run it reruns (run-rerun.service.ts).
   */
  private async historyBefore(run: Run & { project_id: number }): Promise<ChatMessage[]> {
    const rows: ChatMessage[] = await this.ds.query(
      `WITH o AS (SELECT id, created_at FROM runs WHERE id = $4)
       SELECT role, content FROM messages
        WHERE project_id = $1 AND content <> '' AND run_id IS DISTINCT FROM $2 AND run_id IS DISTINCT FROM (SELECT id FROM o)
          AND CASE WHEN EXISTS (SELECT 1 FROM o) THEN created_at < (SELECT created_at FROM o) ELSE created_at <= $3 END
        ORDER BY id DESC LIMIT ${HISTORY_FOR_CONTEXT}`,
      [run.project_id, run.id, run.created_at, run.rerun_of],
    );
    return rows.reverse().map((m) => ({ role: m.role, content: m.content }));
  }

  private async failed(run: Run, why: string, opts: { workerId?: string }): Promise<null> {
    await this.fail(run, why, !!opts.workerId);
    return null;
  }

  private async fail(run: Run, why: string, afterGap = false): Promise<false> {
    const error = { code: 'resume_failed', message: `The run could not be resumed: ${why}.` };
    await this.end(run, {
      state: 'error',
      error,
      note: { state: 'failed', content: `This run ended without finishing: ${error.message}` },
      afterGap,
    });
    return false;
  }

  /** Ends a run that is not live here (run-ending.ts); an interrupted one keeps its checkpoints. */
  private async end(run: Run, ending: RunEnding) {
    await this.ds.transaction((m) => endStoredRun(m, run, ending, this.fanout));
  }
}

/** A project run that recorded its input (demo runs and runs from before durable runs are not). */
function resumable(run: Run): run is Run & { input: RunInput; owner_id: number; project_id: number } {
  return run.owner_id !== null && run.project_id !== null && run.input !== null;
}
