/**
 * The queue of turns in cluster mode (docs/decisions/cluster.md): graphile-worker on the shared
 * Postgres. A job is added by SQL inside the transaction that admits the run, so a committed run always
 * has its job and a rolled-back one never does; LISTEN/NOTIFY wakes an idle worker at COMMIT. The job
 * only names the run: the run row, its input and checkpoints stay the source of truth.
 */
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG, isCluster, type AppConfig } from '../../platform/config/app-config';
import { graphileLogger } from './graphile-logger';

export const TURN_TASK = 'turn';
/** A job that fails (the worker threw before the run could be ended) is retried this many times. */
const MAX_ATTEMPTS = 25;

export const turnJobKey = (runId: string) => `turn:${runId}`;

@Injectable()
export class TurnQueue implements OnModuleInit {
  private readonly logger = new Logger('TurnQueue');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The queue's schema (graphile-worker's own migrations), before any process adds or takes a job. */
  async onModuleInit() {
    if (!isCluster(this.config)) return;
    const { runMigrations } = await import('graphile-worker');
    await runMigrations({ connectionString: this.config.databaseUrl!, logger: await graphileLogger(this.logger) });
    if (this.config.role !== 'api') return;
    const [{ n }]: Array<{ n: string }> = await this.ds.query('SELECT count(*) AS n FROM cluster_workers');
    if (!Number(n))
      this.logger.warn('no worker is running yet: turns wait in the queue until one starts (ROLE=worker)');
  }

  /**
   * Queues the run's turn in `m`'s transaction; the run is unclaimed again (a run reopened after an
   * approval or an interruption is carried by whichever worker takes the job).
   */
  async enqueue(m: EntityManager | DataSource, runId: string): Promise<void> {
    await this.queueRun(m, runId, null);
  }

  /** A worker that stops gives a run it still holds back to the queue: another worker resumes it. */
  async handBack(runId: string, workerId: string): Promise<void> {
    await this.queueRun(this.ds, runId, workerId);
  }

  /** Clears the run's worker (only if `heldBy` still holds it and it runs, when given) and adds its job. */
  private async queueRun(m: EntityManager | DataSource, runId: string, heldBy: string | null) {
    await m.query(
      `WITH free AS (UPDATE runs SET worker_id = NULL
                      WHERE id = $1 AND ($2::varchar IS NULL OR (worker_id = $2 AND state = 'running')) RETURNING id)
       SELECT graphile_worker.add_job($3, json_build_object('run_id', $1::text), job_key => $4, max_attempts => $5) FROM free`,
      [runId, heldBy, TURN_TASK, turnJobKey(runId), MAX_ATTEMPTS],
    );
  }

  /** Takes a queued turn out of the queue (a job a worker holds is only kept from running again). */
  async remove(m: EntityManager | DataSource, runId: string): Promise<void> {
    await m.query('SELECT graphile_worker.remove_job($1)', [turnJobKey(runId)]);
  }
}
