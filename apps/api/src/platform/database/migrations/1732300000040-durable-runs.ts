import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Durable runs (docs/decisions/runtime.md, "Durable runs"): the checkpoints of a turn (one row per
 * completed step, compacted when the run ends unless it can still be resumed), the turn's input on the
 * run row (so a resume can start it again), and an idempotency key on file revisions so a write a
 * resumed run repeats is found instead of applied twice.
 */
export class DurableRuns1732300000040 implements MigrationInterface {
  name = 'DurableRuns1732300000040';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE run_checkpoints (
        run_id uuid NOT NULL,
        step integer NOT NULL,
        event_seq integer NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT run_checkpoints_pkey PRIMARY KEY (run_id, step),
        CONSTRAINT run_checkpoints_run_id_fkey FOREIGN KEY (run_id) REFERENCES runs(id) ON DELETE CASCADE
      );
      ALTER TABLE runs ADD COLUMN input jsonb;
      ALTER TABLE file_revisions ADD COLUMN idempotency_key varchar(128);
      CREATE UNIQUE INDEX file_revisions_idempotency_key ON file_revisions (project_id, idempotency_key)
        WHERE idempotency_key IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX file_revisions_idempotency_key;
      ALTER TABLE file_revisions DROP COLUMN idempotency_key;
      ALTER TABLE runs DROP COLUMN input;
      DROP TABLE run_checkpoints;
    `);
  }
}
