import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rerun from a node (docs/decisions/runtime.md, "Rerun from a node"): a rerun is a new run that records
 * the run it reruns; deleting the original leaves the rerun with `rerun_of` null.
 */
export class RunRerunOf1732300000046 implements MigrationInterface {
  name = 'RunRerunOf1732300000046';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE runs ADD COLUMN rerun_of uuid;
      ALTER TABLE runs ADD CONSTRAINT runs_rerun_of_fkey FOREIGN KEY (rerun_of) REFERENCES runs(id) ON DELETE SET NULL;
      CREATE INDEX runs_rerun_of ON runs (rerun_of);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs DROP COLUMN rerun_of;`);
  }
}
