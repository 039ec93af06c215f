/**
 * Runs left in flight (docs/decisions/runtime.md, "Durable runs"). At boot, with RESUME_INTERRUPTED=auto
 * (the default), each run a crash left `running` goes on under the same run id from its last checkpoint
 * (runtime/step-log.ts): finished model and tool calls are not made again, its stream goes on with the
 * next seqs after a `status {state: "resumed", drop_after_seq}` event. With `off` (and for demo runs)
 * it is marked `interrupted`. `POST /agent/runs/{id}/resume` resumes an `interrupted` run on demand.
 * A run that cannot resume (its pack is gone, MAX_RESUME_ATTEMPTS starts) ends `error` with
 * `resume_failed` and a reason — never stuck `running`.
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryFailedError } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { DomainError } from '../../platform/errors/domain-error';
import { errorInfo } from '../../platform/logging/error-info';
import type { AuthUser } from '../auth/user.entity';
import { Project } from '../projects/project.entity';
import type { ChatMessage } from '../runtime/providers/provider';
import type { Step } from '../runtime/step-log';
import { WorkflowsService } from '../workflows/workflows.service';
import { ChatService } from './chat.service';
import { Message, type MessageState } from './message.entity';
import { unfinishedTurn } from './run-admission';
import { RunEvent } from './run-event.entity';
import { RunHub } from './run-hub';
import { Run, type RunInput, type RunState } from './run.entity';

/** A run is started at most this many times (the first start and its resumes). */
export const MAX_RESUME_ATTEMPTS = 3;
const HISTORY_FOR_CONTEXT = 20;
/**
 * A resumed run numbers its events from this far above the last stored one: a client may have seen events
 * the crash kept from being stored (those since the last checkpoint or flush — at most one model call's
 * stream, ≤ 1,048,576 one-character deltas, and a few more), and its Last-Event-ID must not fall among
 * the new attempt's seqs. The numbering stays increasing; `status {state: "resumed"}` comes first after
 * the gap. (seq is an integer column: MAX_RESUME_ATTEMPTS gaps fit many times over.)
 */
export const RESUME_SEQ_GAP = 1_100_000;
const INTERRUPTED = { code: 'interrupted', message: 'The server restarted while this run was in flight.' };

@Injectable()
export class RunRecovery implements OnApplicationBootstrap {
  private readonly logger = new Logger('RunRecovery');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly chat: ChatService,
    private readonly hub: RunHub,
    private readonly workflows: WorkflowsService,
  ) {}

  async onApplicationBootstrap() {
    const stale = await this.ds.getRepository(Run).find({ where: { state: 'running' } });
    let resumed = 0;
    for (const run of stale) {
      if (this.config.resumeInterrupted === 'auto' && resumable(run)) {
        if (await this.resume(run)) resumed++;
      } else await this.end(run, 'interrupted', INTERRUPTED);
    }
    if (resumed) this.logger.warn(`resumed ${resumed} run(s) left in flight by a restart`);
    if (stale.length - resumed)
      this.logger.warn(`${stale.length - resumed} run(s) left in flight by a restart could not be resumed`);
  }

  /** POST /agent/runs/{id}/resume: an `interrupted` run of the caller's goes on under the same id. */
  async resumeOnDemand(user: AuthUser, runId: string) {
    const run = await this.chat.findRunFor(user, runId);
    if (run.owner_id !== user.id) throw new DomainError('not_found', `Run ${runId} not found`);
    if (run.state === 'running' && (this.hub.isLive(runId) || this.hub.isSettling(runId)))
      throw new DomainError('run.not_resumable', `Run ${runId} is running.`);
    if (run.state !== 'interrupted' && run.state !== 'running')
      throw new DomainError('run.not_resumable', `Run ${runId} cannot be resumed (state: ${run.state}).`);
    if (!resumable(run))
      throw new DomainError('run.not_resumable', `Run ${runId} cannot be resumed: it recorded no checkpoints.`);
    if (run.state === 'interrupted') await this.reopen(run);
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
  resumeRun(run: Run): Promise<boolean> {
    if (!resumable(run)) return this.fail(run, 'it recorded no input');
    return this.resume(run);
  }

  /**
   * Starts the run again from its checkpoints; false when it cannot be (then it has been ended). The
   * turn itself goes on detached, like any turn.
   */
  private async resume(run: Run & { input: RunInput; owner_id: number; project_id: number }): Promise<boolean> {
    try {
      const [user]: AuthUser[] = await this.ds.query('SELECT id, username, is_admin FROM users WHERE id = $1', [
        run.owner_id,
      ]);
      const project = await this.ds.getRepository(Project).findOneBy({ id: run.project_id });
      if (!user || !project) return this.fail(run, 'its project no longer exists');
      const pack = run.workflow_id
        ? await this.workflows.getPackForRuntime(user, run.workflow_id).catch(() => null)
        : null;
      if (!pack) return this.fail(run, 'its pack was deleted');
      const [state]: Array<{ seq: number; checkpoint_seq: number; steps: Step[]; message: string | null }> =
        await this.ds.query(
          `SELECT (SELECT coalesce(max(seq), 0) FROM run_events WHERE run_id = $1) AS seq,
                  (SELECT coalesce(max(event_seq), 0) FROM run_checkpoints WHERE run_id = $1) AS checkpoint_seq,
                  (SELECT coalesce(jsonb_agg(data ORDER BY step), '[]') FROM run_checkpoints WHERE run_id = $1) AS steps,
                  (SELECT content FROM messages WHERE run_id = $1 AND role = 'user' LIMIT 1) AS message`,
          [run.id],
        );
      // a start after a decision on a pending tool call (per-tool approval) is not a retry
      const decisions = state.steps.filter((s) => s.step === 'decision').length;
      if (run.attempts - decisions >= MAX_RESUME_ATTEMPTS)
        return this.fail(run, `it was started ${run.attempts - decisions} times without finishing`);
      // the project's history before this run (later turns, after an interruption, are not its context)
      const recent: ChatMessage[] = await this.ds.query(
        `SELECT role, content FROM messages WHERE project_id = $1 AND content <> '' AND run_id IS DISTINCT FROM $2
          AND created_at <= $3 ORDER BY id DESC LIMIT ${HISTORY_FOR_CONTEXT}`,
        [project.id, run.id, run.created_at],
      );
      const [[attempt]]: [[{ attempts: number }], number] = await this.ds.query(
        'UPDATE runs SET attempts = attempts + 1 WHERE id = $1 RETURNING attempts',
        [run.id],
      );
      const result = this.chat.execute({
        runId: run.id,
        ownerId: user.id,
        project,
        pack,
        ports: this.chat.projectPorts(user, project, run.id),
        history: recent.reverse().map((m) => ({ role: m.role, content: m.content })),
        input: { advance: run.input.advance, node_key: run.input.node_key ?? undefined },
        message: state.message ?? '',
        stage: run.input.stage,
        awaitingGate: run.input.awaiting_gate,
        resume: {
          steps: state.steps,
          seq: Number(state.seq) + RESUME_SEQ_GAP,
          checkpointSeq: Number(state.checkpoint_seq),
          attempt: attempt.attempts,
        },
      });
      result.catch((err) => this.logger.error({ err: errorInfo(err), run_id: run.id }, 'resumed run failed'));
      this.logger.log({ run_id: run.id, steps: state.steps.length, attempt: attempt.attempts }, 'run resumed');
      return true;
    } catch (err) {
      this.logger.error({ err: errorInfo(err), run_id: run.id }, 'could not resume the run');
      return this.fail(run, 'it could not be started again');
    }
  }

  private async fail(run: Run, why: string): Promise<false> {
    await this.end(run, 'error', { code: 'resume_failed', message: `The run could not be resumed: ${why}.` });
    return false;
  }

  /**
   * Ends a run that is not live here: `error`, `done`, `close` after its stored events, its outcome,
   * and a history note. Checkpoints stay for an `interrupted` run (it can still be resumed).
   */
  private async end(run: Run, state: RunState, error: { code: string; message: string }) {
    await this.ds.transaction(async (m) => {
      const last: Array<{ max: number | null }> = await m.query(
        'SELECT max(seq) AS max FROM run_events WHERE run_id = $1',
        [run.id],
      );
      let seq = Number(last[0]?.max ?? 0);
      const events = [
        { event: 'error', data: error },
        { event: 'done', data: { run_id: run.id, reply: run.reply, usage: run.usage, state } },
        { event: 'close', data: {} },
      ];
      await m
        .getRepository(RunEvent)
        .insert(events.map((e) => ({ run_id: run.id, seq: ++seq, event: e.event, data: e.data })));
      await m
        .getRepository(Run)
        .update({ id: run.id, state: 'running' }, { state, finished_at: new Date(), last_seq: seq, error });
      if (state !== 'interrupted') await m.query('DELETE FROM run_checkpoints WHERE run_id = $1', [run.id]);
      if (run.project_id) {
        const note: MessageState = state === 'interrupted' ? 'interrupted' : 'failed';
        await m.getRepository(Message).insert({
          project_id: run.project_id,
          run_id: run.id,
          role: 'assistant',
          content:
            state === 'interrupted'
              ? 'This run was interrupted by a server restart before it finished.'
              : `This run ended without finishing: ${error.message}`,
          stage: run.stage,
          node_key: run.node_key,
          tool_calls: [],
          state: note,
          error,
        });
      }
    });
  }
}

/** A project run that recorded its input (demo runs and runs from before durable runs are not). */
function resumable(run: Run): run is Run & { input: RunInput; owner_id: number; project_id: number } {
  return run.owner_id !== null && run.project_id !== null && run.input !== null;
}
