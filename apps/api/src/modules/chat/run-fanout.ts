/**
 * Cluster mode's stream fan-out (docs/decisions/cluster.md, "Streams from any replica"). The process
 * where a run is live sends its events to every other process as NOTIFY `run_events` batches (sent as
 * soon as the previous batch has gone: one statement per batch, not per token); a process asked to
 * stream a run that is live elsewhere replays the stored events, then follows the batches (a remote
 * tail). The database stays the record: a batch says which event came before it (`a`), and a tail
 * that has not seen that one reads the missing events from `run_events` before going on — so a late
 * subscriber, a lost notification, an event too large for a notification or a reconnected listener
 * costs a read, never an event lost, doubled or out of order.
 *
 * Off in the single-process default (ROLE=all): the run hub never calls it there.
 */
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { errorInfo } from '../../platform/logging/error-info';
import { ClusterBus, NOTIFY_MAX_BYTES } from '../cluster/cluster-bus';
import type { HubEvent } from './run-hub';
import { storedEvents } from './run-event-store';

export const RUN_EVENTS_CHANNEL = 'run_events';
/** A tail missing stored events looks again this often… */
const FILL_RETRY_MS = 50;
/** …for this long (the live process stores its events within a flush interval), then ends reconnectable. */
const FILL_GIVE_UP_MS = 15_000;
/** A tail that heard nothing for this long reads what was stored meanwhile (a lost last batch costs this much). */
const QUIET_CHECK_MS = 15_000;

/**
 * One notification: run `r`, the seq of the event before the first one here (`a`), and the events as
 * `[seq, event, data]`; or, for an event too large to travel this way, `s`: read up to this seq from
 * the database.
 */
export interface FanoutBatch {
  r: string;
  a: number;
  e?: Array<[number, string, unknown]>;
  s?: number;
}

type Listener = (e: HubEvent) => void;

/** What a run live here still has to send: the seq before the first pending event, and the encoded events. */
interface Outgoing {
  after: number;
  events: Array<{ seq: number; json: string }>;
}

@Injectable()
export class RunFanout implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RunFanout');
  private readonly outgoing = new Map<string, Outgoing>();
  private sending = false;
  private scheduled = false;
  private readonly tails = new Map<string, Set<RemoteTail>>();
  private quietCheck: NodeJS.Timeout | null = null;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly bus: ClusterBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get enabled() {
    return this.bus.enabled;
  }

  onModuleInit() {
    // only API replicas stream runs live elsewhere: a worker sends batches but never listens to them
    if (!this.enabled || this.config.role !== 'api') return;
    this.bus.on(RUN_EVENTS_CHANNEL, (payload) => this.received(payload));
    // notifications sent while the listener was away are lost: every tail reads what was stored since
    this.bus.onReconnect(() => {
      for (const set of this.tails.values()) for (const t of set) t.catchUp();
    });
    // a batch that could not be sent (the database failing at that moment) is found in run_events
    this.quietCheck = setInterval(() => {
      const before = Date.now() - QUIET_CHECK_MS;
      for (const set of this.tails.values()) for (const t of set) if (t.heardAt < before) t.catchUp();
    }, QUIET_CHECK_MS);
    this.quietCheck.unref();
  }

  onApplicationShutdown() {
    if (this.quietCheck) clearInterval(this.quietCheck);
  }

  /**
   * A run live here published `e`; `before` is the seq of the event it published before (or, first
   * after a resume, the last one stored before it). Returns true when the event is too large for a
   * notification: the caller stores it now, and the tails read it from the database.
   */
  sent(runId: string, before: number, e: HubEvent): boolean {
    const json = JSON.stringify([e.seq, e.event, e.data]);
    let out = this.outgoing.get(runId);
    if (!out) {
      out = { after: before, events: [] };
      this.outgoing.set(runId, out);
    }
    out.events.push({ seq: e.seq, json });
    this.schedule();
    return Buffer.byteLength(json) > NOTIFY_MAX_BYTES - 100;
  }

  private schedule() {
    if (this.sending || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.send());
  }

  /** Everything pending, every run, as one statement; what arrives meanwhile goes in the next one. */
  private async send() {
    this.scheduled = false;
    if (!this.outgoing.size) return;
    const payloads: string[] = [];
    for (const [runId, out] of this.outgoing) payloads.push(...encode(runId, out));
    this.outgoing.clear();
    this.sending = true;
    try {
      await this.bus.notifyMany(RUN_EVENTS_CHANNEL, payloads);
    } catch (err) {
      // the subscribers' tails find the events in run_events (stored by the run hub) when the next batch comes
      this.logger.warn({ err: errorInfo(err) }, 'could not send run events to the other processes');
    } finally {
      this.sending = false;
      if (this.outgoing.size) this.schedule();
    }
  }

  /** Events just stored by `m`'s transaction (a run ended outside any live process), sent at its COMMIT. */
  async announce(m: EntityManager, runId: string, before: number, events: HubEvent[]): Promise<void> {
    const payloads = encode(runId, {
      after: before,
      events: events.map((e) => ({ seq: e.seq, json: JSON.stringify([e.seq, e.event, e.data]) })),
    });
    await m.query(`SELECT pg_notify('${RUN_EVENTS_CHANNEL}', p) FROM unnest($1::text[]) AS p`, [payloads]);
  }

  private received(payload: string) {
    // every batch of every run reaches every replica: parse only those of runs streamed here
    // (a payload starts `{"r":"<run id>"`, see encode)
    if (!this.tails.has(payload.slice(6, 42))) return;
    let batch: FanoutBatch;
    try {
      batch = JSON.parse(payload) as FanoutBatch;
    } catch {
      return;
    }
    const set = this.tails.get(batch.r);
    if (set) for (const t of set) t.receive(batch);
  }

  /**
   * Streams a run live in another process (or finished): its stored events after `afterSeq`, then its
   * batches, until `close`. Returns the unsubscribe function.
   */
  async tail(runId: string, afterSeq: number, fn: Listener, end: () => void): Promise<() => void> {
    const t = new RemoteTail(this.ds, runId, afterSeq, fn, end, () => this.drop(t));
    let set = this.tails.get(runId);
    if (!set) this.tails.set(runId, (set = new Set()));
    // listening before the read: a batch sent meanwhile waits in the tail, none falls between the two
    set.add(t);
    try {
      await t.start();
    } catch (err) {
      this.drop(t);
      throw err;
    }
    return () => this.drop(t);
  }

  private drop(t: RemoteTail) {
    const set = this.tails.get(t.runId);
    if (!set) return;
    set.delete(t);
    if (!set.size) this.tails.delete(t.runId);
  }

  /** Shutdown: every tail ends without `close`, so its client reconnects (Last-Event-ID) to another replica. */
  endAll() {
    for (const set of [...this.tails.values()]) for (const t of [...set]) t.stop();
  }
}

/** A run's pending events as notification payloads of at most NOTIFY_MAX_BYTES, each naming the seq before it. */
export function encode(runId: string, out: Outgoing): string[] {
  const payloads: string[] = [];
  const run = JSON.stringify(runId);
  const limit = NOTIFY_MAX_BYTES - 100;
  let before = out.after;
  let last = before;
  let parts: string[] = [];
  let size = 0;
  const flush = () => {
    if (!parts.length) return;
    payloads.push(`{"r":${run},"a":${before},"e":[${parts.join(',')}]}`);
    parts = [];
    size = 0;
    before = last;
  };
  for (const e of out.events) {
    const bytes = Buffer.byteLength(e.json);
    if (bytes > limit) {
      // too large to travel: the tails read it (and anything before it they lack) from the database
      flush();
      payloads.push(`{"r":${run},"a":${before},"s":${e.seq}}`);
      before = last = e.seq;
      continue;
    }
    if (parts.length && size + bytes + 1 > limit) flush();
    parts.push(e.json);
    size += bytes + 1;
    last = e.seq;
  }
  flush();
  return payloads;
}

/**
 * One subscriber of a run live elsewhere. Events reach `fn` once each, in seq order: from the database
 * first, then from batches; a batch whose predecessor (`a`) it has not seen makes it read the missing
 * events from the database first (retrying while the live process has not stored them yet).
 */
class RemoteTail {
  /** when it last received a batch or read the database */
  heardAt = Date.now();
  private last: number;
  private live = false;
  private filling = false;
  private ended = false;
  private readonly queue: FanoutBatch[] = [];

  constructor(
    private readonly ds: DataSource,
    readonly runId: string,
    afterSeq: number,
    private readonly fn: Listener,
    private readonly end: () => void,
    private readonly dropped: () => void,
  ) {
    this.last = afterSeq;
  }

  async start() {
    this.deliver(await storedEvents(this.ds, this.runId, this.last));
    this.live = true;
    void this.drain();
  }

  receive(batch: FanoutBatch) {
    if (this.ended) return;
    this.heardAt = Date.now();
    this.queue.push(batch);
    if (this.live && !this.filling) void this.drain();
  }

  /** After a lost listener: whatever was stored meanwhile, then the batches as before. */
  catchUp() {
    if (this.ended || !this.live) return;
    this.heardAt = Date.now();
    this.queue.push({ r: this.runId, a: this.last, s: Number.MAX_SAFE_INTEGER });
    if (!this.filling) void this.drain();
  }

  stop() {
    if (this.ended) return;
    this.ended = true;
    this.dropped();
    this.end();
  }

  private async drain() {
    this.filling = true;
    try {
      while (!this.ended && this.queue.length) {
        const b = this.queue[0];
        const need = b.s ?? b.a;
        if (need > this.last && !(await this.fill(need, b.s === Number.MAX_SAFE_INTEGER))) return this.stop();
        this.queue.shift();
        if (b.e) for (const [seq, event, data] of b.e) this.deliver([{ seq, event, data }]);
      }
    } catch {
      // the database is unavailable: end without `close`, the client reconnects with Last-Event-ID
      this.stop();
    } finally {
      this.filling = false;
    }
  }

  /** Reads stored events up to `upTo`; true once the tail has reached it (or, `any`, read what there was). */
  private async fill(upTo: number, any: boolean): Promise<boolean> {
    const giveUp = Date.now() + FILL_GIVE_UP_MS;
    for (;;) {
      this.deliver(await storedEvents(this.ds, this.runId, this.last, any ? undefined : upTo));
      if (this.ended || any || this.last >= upTo) return true;
      if (Date.now() > giveUp) return false;
      await new Promise((resolve) => setTimeout(resolve, FILL_RETRY_MS));
    }
  }

  private deliver(events: HubEvent[]) {
    for (const e of events) {
      if (this.ended || e.seq <= this.last) continue;
      this.last = e.seq;
      this.fn(e);
      if (e.event === 'close') {
        this.ended = true;
        this.dropped();
        this.end();
      }
    }
  }
}
