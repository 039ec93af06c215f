import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-tool approval (docs/decisions/runtime.md, "Per-tool approval"): skills and agents name the tools whose
 * calls wait for a user's decision; a run (and its history entry) can stop `awaiting_approval` (17
 * characters: the state columns widen) with the pending call; and a project has at most one unfinished turn
 * — running or awaiting approval — so the one-turn index covers both states.
 */
export class ToolApproval1732300000045 implements MigrationInterface {
  name = 'ToolApproval1732300000045';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE skills ADD COLUMN tools_requiring_approval text[] NOT NULL DEFAULT '{}';
      ALTER TABLE agents ADD COLUMN tools_requiring_approval text[] NOT NULL DEFAULT '{}';
      ALTER TABLE runs ALTER COLUMN state TYPE varchar(32), ADD COLUMN pending_approval jsonb;
      ALTER TABLE messages ALTER COLUMN state TYPE varchar(32), ADD COLUMN pending_approval jsonb;
      DROP INDEX runs_one_running_per_project;
      CREATE UNIQUE INDEX runs_one_running_per_project ON runs (project_id) WHERE state IN ('running', 'awaiting_approval');
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE runs SET state = 'interrupted', pending_approval = NULL WHERE state = 'awaiting_approval';
      UPDATE messages SET state = 'interrupted' WHERE state = 'awaiting_approval';
      DROP INDEX runs_one_running_per_project;
      CREATE UNIQUE INDEX runs_one_running_per_project ON runs (project_id) WHERE state = 'running';
      ALTER TABLE messages DROP COLUMN pending_approval, ALTER COLUMN state TYPE varchar(16);
      ALTER TABLE runs DROP COLUMN pending_approval, ALTER COLUMN state TYPE varchar(16);
      ALTER TABLE agents DROP COLUMN tools_requiring_approval;
      ALTER TABLE skills DROP COLUMN tools_requiring_approval;
    `);
  }
}
