import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Runs can be inspected (docs/API.md "Runs"): `GET /agent/runs` lists a user's runs newest first (this
 * index; a project's runs use runs_project), and every run counts its attempts (1 until runs can be resumed).
 */
export class RunInspection1732300000030 implements MigrationInterface {
  name = 'RunInspection1732300000030';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE runs ADD COLUMN attempts integer NOT NULL DEFAULT 1;
      CREATE INDEX runs_by_owner ON runs (owner_id, created_at, id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX runs_by_owner; ALTER TABLE runs DROP COLUMN attempts`);
  }
}
