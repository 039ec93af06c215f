/**
 * Live runs in this process: every event gets the next `seq`, is kept in memory while the run is live
 * (so subscribers can replay and tail), fanned out to subscribers, and written to `run_events` in
 * batches (one multi-row insert per flush) so a token stream costs no write per token. A finished
 * run is replayed from the database. Unsubscribing never stops a run; cancel() does.
 */
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RunEvent } from './run-event.entity';

export interface HubEvent {
  seq: number;
  event: string;
  data: unknown;
}

type Listener = (e: HubEvent) => void;

const FLUSH_MS = 200;
const FLUSH_MAX = 200;
/** Keep a finished run in memory briefly so a client reconnecting right after `close` replays from memory. */
const LINGER_MS = 30_000;

class LiveRun {
  events: HubEvent[] = [];
  listeners = new Set<{ fn: Listener; end: () => void }>();
  pending: HubEvent[] = [];
  flushing: Promise<void> = Promise.resolve();
  timer: NodeJS.Timeout | null = null;
  finished = false;
  constructor(readonly id: string, readonly ownerId: number | null, readonly controller: AbortController) {}
}

@Injectable()
export class RunHub implements OnApplicationShutdown {
  private readonly logger = new Logger('RunHub');
  private readonly live = new Map<string, LiveRun>();

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  start(runId: string, ownerId: number | null, controller: AbortController) {
    this.live.set(runId, new LiveRun(runId, ownerId, controller));
  }

  isLive(runId: string) {
    const r = this.live.get(runId);
    return !!r && !r.finished;
  }

  liveOwner(runId: string): { ownerId: number | null } | null {
    const r = this.live.get(runId);
    return r ? { ownerId: r.ownerId } : null;
  }

  /** Cancels a live run; false when it is not running here. */
  cancel(runId: string): boolean {
    const r = this.live.get(runId);
    if (!r || r.finished) return false;
    r.controller.abort();
    return true;
  }

  publish(runId: string, event: string, data: unknown): HubEvent {
    const r = this.live.get(runId);
    if (!r) throw new Error(`run ${runId} is not live`);
    const e: HubEvent = { seq: r.events.length + 1, event, data };
    r.events.push(e);
    r.pending.push(e);
    for (const l of r.listeners) l.fn(e);
    if (r.pending.length >= FLUSH_MAX) this.flush(r);
    else if (!r.timer) r.timer = setTimeout(() => this.flush(r), FLUSH_MS);
    return e;
  }

  private flush(r: LiveRun): Promise<void> {
    if (r.timer) {
      clearTimeout(r.timer);
      r.timer = null;
    }
    const batch = r.pending.splice(0);
    if (batch.length) {
      r.flushing = r.flushing.then(() =>
        this.ds
          .createQueryBuilder()
          .insert()
          .into(RunEvent)
          .values(batch.map((e) => ({ run_id: r.id, seq: e.seq, event: e.event, data: e.data as never })))
          .execute()
          .then(() => undefined)
          .catch((err) => this.logger.error({ err: String(err), run_id: r.id }, 'could not persist run events')),
      );
    }
    return r.flushing;
  }

  /**
   * Ends a run in one write: `close` gets the next seq, `persist` stores it with every event still
   * pending (the caller adds the run's outcome to the same statement), and only then do subscribers
   * see `close` — whoever reads it can rely on the run and its history being stored. When `persist`
   * throws, nothing is consumed (the events stay pending) and the error reaches the caller.
   */
  async complete(runId: string, persist: (events: HubEvent[]) => Promise<void>): Promise<void> {
    const r = this.live.get(runId);
    if (!r || r.finished) return;
    if (r.timer) {
      clearTimeout(r.timer);
      r.timer = null;
    }
    await r.flushing;
    const close: HubEvent = { seq: r.events.length + 1, event: 'close', data: {} };
    const batch = [...r.pending, close];
    await persist(batch);
    r.pending.length = 0;
    r.events.push(close);
    for (const l of r.listeners) l.fn(close);
    this.end(r);
  }

  /** Writes what is pending (the caller has published `close`), ends every subscription, forgets the run after a linger. */
  async finish(runId: string) {
    const r = this.live.get(runId);
    if (!r || r.finished) return;
    await this.flush(r);
    this.end(r);
  }

  private end(r: LiveRun) {
    r.finished = true;
    for (const l of r.listeners) l.end();
    r.listeners.clear();
    setTimeout(() => this.live.delete(r.id), LINGER_MS).unref();
  }

  /**
   * Replays the run's events after `afterSeq`, then tails live events until the run ends.
   * Returns the unsubscribe function. `end` is called once when nothing more will come.
   */
  async subscribe(runId: string, afterSeq: number, fn: Listener, end: () => void): Promise<() => void> {
    const r = this.live.get(runId);
    if (r) {
      for (const e of r.events) if (e.seq > afterSeq) fn(e);
      if (r.finished) {
        end();
        return () => undefined;
      }
      const entry = { fn, end };
      r.listeners.add(entry);
      return () => r.listeners.delete(entry);
    }
    const rows = await this.ds.getRepository(RunEvent).createQueryBuilder('e').where('e.run_id = :runId AND e.seq > :afterSeq', { runId, afterSeq }).orderBy('e.seq', 'ASC').getMany();
    for (const row of rows) fn({ seq: row.seq, event: row.event, data: row.data });
    end();
    return () => undefined;
  }

  async onApplicationShutdown() {
    for (const r of this.live.values()) {
      if (!r.finished) r.controller.abort();
      await this.flush(r);
    }
  }
}
