import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Limits shared by the processes of a cluster (docs/OPERATIONS.md, "Limits"; unused with ROLE=all):
 * the rate limiters' windows (`rate_limit_hits`, one row per throttler key) and the concurrency slots
 * (`limit_slots`: open streams per user, demo turns per client), each held under a lease its process
 * renews. Both are UNLOGGED: nothing in them outlives a minute, and a crash that empties them only
 * forgets some counts — no WAL for a write per login attempt or stream.
 */
export class SharedLimits1732300000073 implements MigrationInterface {
  name = 'SharedLimits1732300000073';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE UNLOGGED TABLE rate_limit_hits (
        key text PRIMARY KEY,
        hits integer NOT NULL,
        window_ends_at timestamptz NOT NULL,
        blocked_until timestamptz
      );
      CREATE UNLOGGED TABLE limit_slots (
        id uuid PRIMARY KEY,
        key text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX limit_slots_key_idx ON limit_slots (key, expires_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE limit_slots; DROP TABLE rate_limit_hits`);
  }
}
