/**
 * The cluster's wake-up and fan-out channel (docs/decisions/cluster.md): Postgres LISTEN/NOTIFY on the
 * shared database. One dedicated connection per process listens; a notification is sent by any pooled
 * connection (`pg_notify`), and inside a transaction it is delivered at COMMIT. Payloads are at most
 * NOTIFY_MAX_BYTES; larger data travels through its table and the notification only points at it.
 *
 * Off in the single-process default (ROLE=all): `enabled` is false, nothing listens and notify() does
 * nothing — there is nobody else to tell.
 */
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG, isCluster, type AppConfig } from '../../platform/config/app-config';
import { errorInfo } from '../../platform/logging/error-info';

/** Postgres refuses payloads of 8000 bytes or more; this leaves room for multi-byte characters counted as one. */
export const NOTIFY_MAX_BYTES = 7_900;
const RECONNECT_MS = 1_000;

type Handler = (payload: string) => void;

@Injectable()
export class ClusterBus implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('ClusterBus');
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly reconnected = new Set<() => void>();
  private client: Client | null = null;
  private stopping = false;
  readonly enabled: boolean;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.enabled = isCluster(config);
  }

  async onModuleInit() {
    if (this.enabled) await this.connect();
  }

  /** Handles every notification on `channel` (from any process, this one included). */
  on(channel: string, fn: Handler): () => void {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      if (this.client) void this.client.query(`LISTEN ${quoteChannel(channel)}`).catch(() => undefined);
    }
    set.add(fn);
    return () => set.delete(fn);
  }

  /** Called after the listening connection was lost and made again: notifications in between are lost, so re-read the state. */
  onReconnect(fn: () => void): () => void {
    this.reconnected.add(fn);
    return () => this.reconnected.delete(fn);
  }

  /**
   * Sends notifications at once on the listening connection (no pool, no ORM layer between: the stream
   * fan-out's hot path), or through the pool while that connection is being made again. In order.
   */
  async notifyMany(channel: string, payloads: string[]): Promise<void> {
    if (!this.enabled || !payloads.length) return;
    const sql = 'SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p';
    if (this.client) await this.client.query(sql, [channel, payloads]);
    else await this.ds.query(sql, [channel, payloads]);
  }

  /** Sends a notification, inside `m`'s transaction when given (delivered at its COMMIT). */
  async notify(channel: string, payload: string, m?: EntityManager): Promise<void> {
    if (!this.enabled) return;
    await (m ?? this.ds).query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.config.databaseUrl ?? undefined });
    client.on('notification', (n) => {
      const set = this.handlers.get(n.channel);
      if (!set) return;
      for (const fn of set) {
        try {
          fn(n.payload ?? '');
        } catch (err) {
          this.logger.error({ err: errorInfo(err), channel: n.channel }, 'a notification handler failed');
        }
      }
    });
    const lost = (err?: unknown) => {
      if (this.client !== client) return;
      this.client = null;
      client.end().catch(() => undefined);
      if (this.stopping) return;
      this.logger.warn({ err: err ? errorInfo(err) : undefined }, 'lost the notification connection; reconnecting');
      setTimeout(() => void this.reconnect(), RECONNECT_MS).unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    await client.connect();
    for (const channel of this.handlers.keys()) await client.query(`LISTEN ${quoteChannel(channel)}`);
    this.client = client;
  }

  private async reconnect() {
    if (this.stopping) return;
    try {
      await this.connect();
      this.logger.log('notification connection made again');
      for (const fn of this.reconnected) fn();
    } catch (err) {
      this.logger.warn({ err: errorInfo(err) }, 'could not reconnect the notification connection; retrying');
      setTimeout(() => void this.reconnect(), RECONNECT_MS).unref();
    }
  }

  async onApplicationShutdown() {
    this.stopping = true;
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }
}

function quoteChannel(channel: string) {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
  return `"${channel}"`;
}
