/**
 * The rate limiters' counts in Postgres, for cluster mode (docs/OPERATIONS.md, "Limits"): every API
 * process shares one window per throttler key, so a client or username gets its limit once across the
 * cluster, not once per replica. With ROLE=all the throttler keeps its in-memory storage and this class
 * is never used (app.module.ts).
 *
 * One statement per hit: an upsert on the key that starts a new window when the old one has ended (or
 * its block has), counts the hit otherwise, and blocks the key for `blockDuration` once the count passes
 * the limit — the same answers as @nestjs/throttler's in-memory storage, with a fixed window instead of
 * a sliding one. Times are the database's, so the processes' clocks do not matter. Rows whose window and
 * block have both ended are deleted every SWEEP_MS.
 */
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { APP_CONFIG, isCluster, type AppConfig } from '../../platform/config/app-config';
import { errorInfo } from '../../platform/logging/error-info';

/** what increment() answers (@nestjs/throttler's ThrottlerStorageRecord) */
export interface ThrottlerRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

const SWEEP_MS = 60_000;
/** keys longer than this are stored as their SHA-256 (a tracker can come from a request body) */
const MAX_KEY = 200;

// $1 key, $2 ttl (ms), $3 limit, $4 block duration (ms). "ended": the window is over and no block holds,
// or a block was set and is over; "blocked": a block holds — the hit is refused and not counted.
export const INCREMENT_SQL = `
  INSERT INTO rate_limit_hits AS r (key, hits, window_ends_at, blocked_until)
  VALUES ($1::text, 1, now() + $2::float8 * interval '1 millisecond',
          CASE WHEN 1 > $3::int AND $4::float8 > 0 THEN now() + $4::float8 * interval '1 millisecond' END)
  ON CONFLICT (key) DO UPDATE SET
    hits = CASE
      WHEN r.blocked_until > now() THEN r.hits
      WHEN r.blocked_until IS NOT NULL OR r.window_ends_at <= now() THEN 1
      ELSE r.hits + 1 END,
    window_ends_at = CASE
      WHEN r.blocked_until > now() THEN r.window_ends_at
      WHEN r.blocked_until IS NOT NULL OR r.window_ends_at <= now() THEN excluded.window_ends_at
      ELSE r.window_ends_at END,
    blocked_until = CASE
      WHEN r.blocked_until > now() THEN r.blocked_until
      WHEN r.blocked_until IS NOT NULL OR r.window_ends_at <= now() THEN excluded.blocked_until
      WHEN r.hits + 1 > $3::int AND $4::float8 > 0 THEN now() + $4::float8 * interval '1 millisecond'
      END
  RETURNING hits,
    greatest(0, extract(epoch FROM window_ends_at - now()) * 1000)::float8 AS expire_ms,
    coalesce(greatest(0, extract(epoch FROM blocked_until - now()) * 1000), 0)::float8 AS block_ms`;

export const SWEEP_SQL = `DELETE FROM rate_limit_hits
  WHERE window_ends_at <= now() AND (blocked_until IS NULL OR blocked_until <= now())`;

export interface IncrementRow {
  hits: number | string;
  expire_ms: number | string;
  block_ms: number | string;
}

/** The row the upsert returned, as the throttler guard reads it (times in whole seconds, rounded up). */
export function toThrottlerRecord(row: IncrementRow, limit: number, blockDuration: number): ThrottlerRecord {
  const totalHits = Number(row.hits);
  const timeToExpire = Math.ceil(Number(row.expire_ms) / 1000);
  if (blockDuration <= 0) {
    // no block: over the limit until the window ends
    const isBlocked = totalHits > limit;
    return { totalHits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0 };
  }
  const timeToBlockExpire = Math.ceil(Number(row.block_ms) / 1000);
  return { totalHits, timeToExpire, isBlocked: timeToBlockExpire > 0, timeToBlockExpire };
}

/** The key as stored: as given, or its SHA-256 when longer than MAX_KEY characters. */
export function storageKey(key: string): string {
  return key.length <= MAX_KEY ? key : 'sha256:' + createHash('sha256').update(key).digest('hex');
}

@Injectable()
export class PgThrottlerStorage implements ThrottlerStorage, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimits');
  private sweep: NodeJS.Timeout | undefined;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap() {
    if (!isCluster(this.config)) return;
    this.sweep = setInterval(() => void this.deleteExpired(), SWEEP_MS);
    this.sweep.unref();
  }

  onApplicationShutdown() {
    clearInterval(this.sweep);
    this.sweep = undefined;
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    _throttlerName: string,
  ): Promise<ThrottlerRecord> {
    const [row]: IncrementRow[] = await this.ds.query(INCREMENT_SQL, [storageKey(key), ttl, limit, blockDuration]);
    return toThrottlerRecord(row, limit, blockDuration);
  }

  /** Deletes the rows whose window and block have ended (every process does; the statement is cheap). */
  async deleteExpired(): Promise<void> {
    try {
      await this.ds.query(SWEEP_SQL);
    } catch (err) {
      this.logger.warn({ err: errorInfo(err) }, 'could not delete expired rate-limit rows; retrying later');
    }
  }
}
