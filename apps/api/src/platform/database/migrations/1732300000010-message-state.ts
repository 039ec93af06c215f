import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every turn ends in history (docs/decisions/runtime.md, "History records every turn"): an assistant
 * message says how its turn ended — done, stopped (cancelled, partial reply kept), failed (with the
 * error) or interrupted (a restart or a shutdown).
 */
export class MessageState1732300000010 implements MigrationInterface {
  name = 'MessageState1732300000010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages ADD COLUMN state varchar(16) NOT NULL DEFAULT 'done', ADD COLUMN error jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages DROP COLUMN state, DROP COLUMN error`);
  }
}
