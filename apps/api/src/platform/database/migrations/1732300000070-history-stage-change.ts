import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A stage move a user asked for (Advance, a gate approval) leaves a history entry (docs/decisions/runtime.md,
 * "History records every turn"): the user's message of that turn carries `stage_change` {from, to, gate}.
 */
export class HistoryStageChange1732300000070 implements MigrationInterface {
  name = 'HistoryStageChange1732300000070';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages ADD COLUMN stage_change jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages DROP COLUMN stage_change`);
  }
}
