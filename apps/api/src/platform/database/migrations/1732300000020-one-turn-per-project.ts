import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One running turn per project, enforced by the database (docs/API.md "Turns"): a partial unique index
 * on runs(project_id) for the running state, and an index for counting a user's running runs.
 * Runs already `running` twice on one project (only after a crash) keep the newest; the others are
 * marked `interrupted` first (the boot marks the rest, as for any run left running).
 */
export class OneTurnPerProject1732300000020 implements MigrationInterface {
  name = 'OneTurnPerProject1732300000020';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE runs SET state = 'interrupted', finished_at = now(),
             error = '{"code":"interrupted","message":"Another turn was running on the same project."}'
       WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY project_id ORDER BY created_at DESC) AS n
                                      FROM runs WHERE state = 'running' AND project_id IS NOT NULL) x WHERE n > 1);
      CREATE UNIQUE INDEX runs_one_running_per_project ON runs (project_id) WHERE state = 'running';
      CREATE INDEX runs_running_by_owner ON runs (owner_id) WHERE state = 'running';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX runs_running_by_owner; DROP INDEX runs_one_running_per_project;`);
  }
}
