/**
 * Concurrency caps shared by the processes of a cluster (docs/OPERATIONS.md, "Limits"): open streams
 * per user (chat/stream-slots.ts) and running demo turns per client (chat/run-admission.ts). Inert with
 * ROLE=all (`enabled` false): those caps then count in memory and nothing here runs.
 *
 * A slot is a `limit_slots` row (id, key, expires_at) held under a lease: the process holding it renews
 * the leases of all its open slots with one UPDATE every RENEW_MS, so the slots of a process that dies
 * expire within LEASE_MS. Taking a slot is one transaction serialised per key by an advisory lock: count
 * the key's live rows, insert one if below the cap. Releasing deletes the row.
 */
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { APP_CONFIG, isCluster, type AppConfig } from '../../platform/config/app-config';
import { errorInfo } from '../../platform/logging/error-info';

export const LEASE_MS = 30_000;
export const RENEW_MS = 10_000;
/** expired rows (of dead processes) are deleted every this many renewals */
const SWEEP_EVERY = 6;
/** first key of the two-key advisory locks taken here ("lims" in ASCII), apart from other locks */
export const SLOT_LOCK_CLASS = 0x6c696d73;

export const TAKE_SLOT_SQL = `
  INSERT INTO limit_slots (id, key, expires_at)
  SELECT $1::uuid, $2::text, now() + $4::float8 * interval '1 millisecond'
  WHERE (SELECT count(*) FROM limit_slots WHERE key = $2::text AND expires_at > now()) < $3::int
  RETURNING id`;

@Injectable()
export class SharedSlots implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SharedSlots');
  /** the slots this process holds, renewed together */
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private renewals = 0;
  readonly enabled: boolean;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.enabled = isCluster(config);
  }

  onApplicationBootstrap() {
    if (!this.enabled) return;
    this.timer = setInterval(() => void this.renew(), RENEW_MS);
    this.timer.unref();
  }

  onApplicationShutdown() {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Takes one of `key`'s `cap` slots across the cluster: the idempotent release function, or null when
   * all are taken. The advisory lock makes concurrent takers of one key count one after the other (the
   * count runs in a statement of its own, after the lock, so it sees the rows of whoever held it before).
   */
  async acquire(key: string, cap: number): Promise<(() => void) | null> {
    const id = randomUUID();
    const taken = await this.ds.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [SLOT_LOCK_CLASS, key]);
      const rows: unknown[] = await m.query(TAKE_SLOT_SQL, [id, key, cap, LEASE_MS]);
      return rows.length > 0;
    });
    if (!taken) return null;
    this.held.add(id);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held.delete(id);
      // a row left behind (database away) expires with its lease: nobody renews it any more
      this.ds.query('DELETE FROM limit_slots WHERE id = $1', [id]).catch((err: unknown) => {
        this.logger.warn({ err: errorInfo(err) }, 'could not delete a released slot; it expires with its lease');
      });
    };
  }

  /** Renews the leases of this process's slots (one UPDATE), and now and then deletes expired rows. */
  async renew(): Promise<void> {
    try {
      if (this.held.size)
        await this.ds.query(
          `UPDATE limit_slots SET expires_at = now() + $2::float8 * interval '1 millisecond' WHERE id = ANY($1::uuid[])`,
          [[...this.held], LEASE_MS],
        );
      if (++this.renewals % SWEEP_EVERY === 0) await this.ds.query('DELETE FROM limit_slots WHERE expires_at <= now()');
    } catch (err) {
      this.logger.warn({ err: errorInfo(err) }, 'could not renew the leases of open slots; retrying');
    }
  }
}
