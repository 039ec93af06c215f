/**
 * A cluster worker (ROLE=worker; docs/decisions/cluster.md): takes queued turns from graphile-worker,
 * claims each run in the database and carries it with the durable runtime, beats a heartbeat, and
 * sweeps: a worker silent for WORKER_DEAD_AFTER_MS is dead — its row goes, the jobs it held are unlocked
 * (graphile-worker's `force_unlock_workers`) and taken by a live worker, which resumes each run from its
 * checkpoints. A worker that finds its own row gone was declared dead while it lived (a pause longer
 * than the threshold): it stops carrying its runs at once, storing nothing more (they are someone
 * else's now), and joins again.
 */
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Runner } from 'graphile-worker';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { errorInfo } from '../../platform/logging/error-info';
import { ClusterBus } from '../cluster/cluster-bus';
import { graphileLogger } from '../cluster/graphile-logger';
import { TURN_TASK } from '../cluster/turn-queue';
import type { HandBack } from './chat.service';
import { CANCELLED, RUN_CANCEL_CHANNEL } from './cluster-turns';
import { endStoredRun } from './run-ending';
import { RunFanout } from './run-fanout';
import { RunHub } from './run-hub';
import { RunRecovery } from './run-recovery.service';
import { AppMetrics } from '../telemetry/app-metrics';
import type { Run } from './run.entity';

const DEMO_INTERRUPTED = {
  state: 'interrupted' as const,
  error: { code: 'interrupted', message: 'The server that ran this demo turn stopped before it finished.' },
  note: { state: 'interrupted' as const, content: '' },
  afterGap: true,
};

/** A cancel that arrives before its run is live here (claimed, not yet started) is kept this long. */
const EARLY_CANCEL_MS = 60_000;

@Injectable()
export class TurnWorker implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('TurnWorker');
  readonly id = `${hostname().slice(0, 32)}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private runner: Runner | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly earlyCancels = new Map<string, number>();
  private stopping = false;
  /** read at each heartbeat, reported on /metrics */
  private readonly levels = { queued: 0, workers: 0 };
  private stopped: Promise<void> | null = null;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly bus: ClusterBus,
    private readonly hub: RunHub,
    private readonly recovery: RunRecovery,
    private readonly fanout: RunFanout,
    private readonly metrics: AppMetrics,
  ) {}

  async onApplicationBootstrap() {
    if (this.config.role !== 'worker') return;
    await this.join();
    this.metrics.addGauge(
      'queue_depth',
      'Turns waiting in the queue for a worker (cluster mode).',
      () => this.levels.queued,
    );
    this.metrics.addGauge('cluster_workers', 'Live workers of the cluster (cluster mode).', () => this.levels.workers);
    this.metrics.addGauge(
      'worker_runs',
      'Runs this worker carries now (cluster mode).',
      () => this.hub.liveRuns().length,
    );
    this.bus.on(RUN_CANCEL_CHANNEL, (runId) => this.cancelHere(runId));
    // cancels sent while the listening connection was away are on the rows
    this.bus.onReconnect(() => void this.cancelFlagged());
    const { run } = await import('graphile-worker');
    const events = new EventEmitter();
    // graphile-worker locks jobs with its pool's id: the sweeper unlocks a dead worker's jobs by these ids
    events.on('pool:create', ({ workerPool }: { workerPool: { id: string } }) => void this.addQueueId(workerPool.id));
    this.runner = await run({
      connectionString: this.config.databaseUrl!,
      concurrency: this.config.workerConcurrency,
      noHandleSignals: true,
      // new jobs wake the worker through LISTEN/NOTIFY; polling only finds retries and unlocked jobs
      pollInterval: Math.min(2_000, this.config.workerHeartbeatMs),
      logger: await graphileLogger(this.logger),
      events,
      taskList: { [TURN_TASK]: (payload) => this.carry(payload as { run_id?: unknown }) },
    });
    this.timer = setInterval(() => void this.beat(), this.config.workerHeartbeatMs);
    this.timer.unref();
    this.logger.log({ worker: this.id, concurrency: this.config.workerConcurrency }, 'worker started');
  }

  private async join() {
    await this.ds.query(`INSERT INTO cluster_workers (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET beat_at = now()`, [
      this.id,
    ]);
  }

  private async addQueueId(queueId: string) {
    await this.ds
      .query(
        `UPDATE cluster_workers SET queue_ids = array_append(queue_ids, $2) WHERE id = $1 AND NOT ($2 = ANY(queue_ids))`,
        [this.id, queueId],
      )
      .catch((err) => this.logger.warn({ err: errorInfo(err) }, 'could not record the queue id'));
  }

  /** The job: claim the run, carry it to its end (the job holds a concurrency slot meanwhile). */
  private async carry(payload: { run_id?: unknown }): Promise<void> {
    // a job fetched as the worker stops fails, so it is retried (by another worker)
    if (this.stopping) throw new Error('this worker is stopping');
    const runId = typeof payload.run_id === 'string' ? payload.run_id : null;
    if (!runId) return;
    const claimed = await this.claim(runId);
    if (!claimed) return;
    const { run, takeover } = claimed;
    if (run.cancel_requested || this.earlyCancels.delete(runId)) {
      await this.ds.transaction((m) => endStoredRun(m, run, { ...CANCELLED, afterGap: takeover }, this.fanout));
      return;
    }
    const carried = await this.recovery.carry(run, this.id, takeover);
    if (!carried) return;
    // a cancel that came while the run was being started
    if (this.earlyCancels.delete(runId)) this.hub.cancel(runId);
    await carried.result.catch((err) =>
      this.logger.error({ err: errorInfo(err), run_id: runId }, 'the turn failed unexpectedly'),
    );
  }

  /**
   * Takes the run if it is still running and nobody live holds it: unclaimed (queued, or handed back),
   * or held by a worker that is gone (`takeover`). Null otherwise (ended, cancelled, or held by a live
   * worker: a duplicate job does nothing).
   */
  private async claim(runId: string): Promise<{ run: Run; takeover: boolean } | null> {
    for (let tries = 0; tries < 2; tries++) {
      const [rows]: [Array<Run & { previous: string | null; me: string | null }>, number] = await this.ds.query(
        `WITH prev AS (SELECT id, worker_id FROM runs WHERE id = $1 FOR UPDATE),
              me AS (SELECT id FROM cluster_workers WHERE id = $2)
         UPDATE runs r SET worker_id = $2 FROM prev LEFT JOIN me ON true
          WHERE r.id = prev.id AND r.state = 'running' AND me.id IS NOT NULL
            AND (prev.worker_id IS NULL OR NOT EXISTS (SELECT 1 FROM cluster_workers w WHERE w.id = prev.worker_id))
         RETURNING r.*, prev.worker_id AS previous, me.id AS me`,
        [runId, this.id],
      );
      if (rows.length) return { run: rows[0], takeover: rows[0].previous !== null };
      // declared dead meanwhile (our row is gone): join again and try once more
      const [alive]: Array<{ id: string }> = await this.ds.query('SELECT id FROM cluster_workers WHERE id = $1', [
        this.id,
      ]);
      if (alive) return null;
      await this.join();
    }
    return null;
  }

  private async cancelFlagged() {
    const live = this.hub.liveRuns();
    if (!live.length) return;
    const flagged = await this.ds
      .query<Array<{ id: string }>>('SELECT id FROM runs WHERE id = ANY($1::uuid[]) AND cancel_requested', [live])
      .catch((): Array<{ id: string }> => []);
    for (const { id } of flagged) this.hub.cancel(id);
  }

  private cancelHere(runId: string) {
    if (this.hub.cancel(runId)) return;
    const now = Date.now();
    for (const [id, at] of this.earlyCancels) if (now - at > EARLY_CANCEL_MS) this.earlyCancels.delete(id);
    this.earlyCancels.set(runId, now);
  }

  /** The heartbeat, then the sweep. A beat that finds no row means this worker was declared dead. */
  private async beat() {
    if (this.stopping) return;
    try {
      const [, n]: [unknown, number] = await this.ds.query('UPDATE cluster_workers SET beat_at = now() WHERE id = $1', [
        this.id,
      ]);
      if (!n) {
        const runs = this.hub.liveRuns();
        this.logger.error(
          { worker: this.id, runs: runs.length },
          'this worker was declared dead (no heartbeat in time): its runs are carried elsewhere now; stopping them here',
        );
        const lost: HandBack = { code: 'handback', requeue: false };
        for (const id of runs) this.hub.cancel(id, lost);
        await this.join();
      }
      await this.sweep();
      const [levels]: Array<{ queued: string; workers: string }> = await this.ds.query(
        `SELECT (SELECT count(*) FROM graphile_worker.jobs WHERE task_identifier = $1 AND locked_at IS NULL) AS queued,
                (SELECT count(*) FROM cluster_workers) AS workers`,
        [TURN_TASK],
      );
      this.levels.queued = Number(levels.queued);
      this.levels.workers = Number(levels.workers);
    } catch (err) {
      this.logger.warn({ err: errorInfo(err) }, 'heartbeat failed');
    }
  }

  /**
   * Workers silent too long are dead: their rows go and the jobs they held are unlocked and announced,
   * so a live worker takes each one and resumes its run. One sweeper at a time (an advisory lock).
   */
  private async sweep() {
    await this.ds.transaction(async (m) => {
      const [lock]: Array<{ ok: boolean }> = await m.query(
        `SELECT pg_try_advisory_xact_lock(hashtext('cluster_workers.sweep')) AS ok`,
      );
      if (!lock?.ok) return;
      const [dead]: [Array<{ id: string; queue_ids: string[] }>, number] = await m.query(
        `DELETE FROM cluster_workers WHERE beat_at < now() - make_interval(secs => $1) RETURNING id, queue_ids`,
        [this.config.workerDeadAfterMs / 1000],
      );
      await this.endOrphanedDemoRuns(m);
      if (!dead.length) return;
      const queueIds = dead.flatMap((d) => d.queue_ids);
      if (queueIds.length) await m.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [queueIds]);
      await m.query(`SELECT pg_notify('jobs:insert', '{"count":1}')`);
      this.logger.warn({ workers: dead.map((d) => d.id) }, 'workers declared dead; their runs are taken over');
    });
  }

  /**
   * Demo turns run in the API replica that admits them and are not resumable: one a replica's crash
   * left `running` past the turn timeout (plus a margin) is ended `interrupted`, its streams closed.
   */
  private async endOrphanedDemoRuns(m: EntityManager) {
    const orphans: Run[] = await m.query(
      `SELECT * FROM runs WHERE state = 'running' AND project_id IS NULL AND created_at < now() - make_interval(secs => $1)
        LIMIT 100`,
      [this.config.turnTimeoutMs / 1000 + 60],
    );
    for (const run of orphans) await endStoredRun(m, run, DEMO_INTERRUPTED, this.fanout);
  }

  /**
   * Shutdown (docs/OPERATIONS.md, "Shutdown"): no new job is taken; the run hub gives live runs half the
   * deadline to finish and hands the rest back (run-hub.ts); then the worker leaves the table.
   */
  beforeApplicationShutdown() {
    if (!this.runner || this.stopping) return;
    this.stopping = true;
    // graphile-worker stops fetching at once and resolves when the jobs in hand have returned
    this.stopped = this.runner.stop().catch(() => undefined);
  }

  async onApplicationShutdown() {
    if (!this.runner) return;
    this.beforeApplicationShutdown();
    if (this.timer) clearInterval(this.timer);
    await this.stopped;
    await this.ds.query('DELETE FROM cluster_workers WHERE id = $1', [this.id]).catch(() => undefined);
  }
}
