import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cluster mode (docs/decisions/cluster.md): each worker process beats in `cluster_workers` (with the ids
 * graphile-worker locks its jobs with); a run records the worker carrying it (`worker_id`, null while
 * queued) and a cancel asked for while it was claimed (`cancel_requested`), so a worker that takes it
 * over after a death ends it instead of resuming it. The queue's own tables (schema graphile_worker) are
 * graphile-worker's migrations, run at boot in cluster mode only.
 */
export class Cluster1732300000072 implements MigrationInterface {
  name = 'Cluster1732300000072';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE cluster_workers (
        id varchar(64) PRIMARY KEY,
        queue_ids text[] NOT NULL DEFAULT '{}',
        started_at timestamptz NOT NULL DEFAULT now(),
        beat_at timestamptz NOT NULL DEFAULT now()
      );
      ALTER TABLE runs ADD COLUMN worker_id varchar(64);
      ALTER TABLE runs ADD COLUMN cancel_requested boolean NOT NULL DEFAULT false;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE runs DROP COLUMN cancel_requested;
      ALTER TABLE runs DROP COLUMN worker_id;
      DROP TABLE cluster_workers;
    `);
  }
}
