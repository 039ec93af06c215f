/**
 * Live runs in this process: every event gets the next `seq`, is kept in memory while the run is live
 * (so subscribers can replay and tail), fanned out to subscribers, and written to `run_events` in
 * batches (one multi-row insert per flush) so a token stream costs no write per token. A finished
 * run is replayed from the database. Unsubscribing never stops a run; cancel() does.
 *
 * A batch the database refuses (an outage, a cut connection) goes back to the front of the queue and
 * is retried with backoff; inserts ignore rows already stored, so a retried batch that had in fact
 * landed is not doubled. A replay therefore shows every event exactly once, in order
 * (docs/decisions/runtime.md, "No lost event, no stuck run").
 */
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { errorInfo as errInfo } from '../../platform/logging/error-info';
import { storableValue } from '../runtime/storable';
import { insertEvents, storedEvents, writeCheckpoints } from './run-event-store';
import { RunFanout } from './run-fanout';
import {
  FLUSH_MAX,
  FLUSH_MS,
  LINGER_MS,
  LiveRun,
  retryDelay,
  type CompleteOptions,
  type Completion,
  type HeldStep,
  type HubEvent,
  type Listener,
} from './live-run';

export { retryDelay, type CompleteOptions, type Completion, type HubEvent } from './live-run';

@Injectable()
export class RunHub implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('RunHub');
  private readonly live = new Map<string, LiveRun>();
  private stopping = false;
  /** SSE responses still being written: a shutdown waits for them to be sent before the server closes */
  private readonly responses = new Set<Promise<void>>();
  /** set by a shutdown: the time by which every run must have ended */
  private shutdownBy: number | null = null;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly fanout: RunFanout,
  ) {}

  /**
   * A run goes live here; a resumed one numbers its events after `resumed.seq` and its steps after
   * `resumed.steps` (`resumed.stored`: its last stored event, which its first new one follows).
   */
  start(
    runId: string,
    ownerId: number | null,
    controller: AbortController,
    resumed?: { seq: number; steps: number; stored: number },
  ) {
    const r = new LiveRun(runId, ownerId, controller);
    if (resumed) {
      r.base = resumed.seq;
      r.steps = resumed.steps;
      r.lastSent = resumed.stored;
    }
    this.live.set(runId, r);
  }

  isLive(runId: string) {
    const r = this.live.get(runId);
    return !!r && !r.finished;
  }

  /** The run has ended here and its outcome is being stored (the final write is under way or retried). */
  isSettling(runId: string) {
    const r = this.live.get(runId);
    return !!r && (r.closing && !r.finished ? true : !!r.unsettled);
  }

  /** Resolves when a run live here has ended for its subscribers; null when it is not live here or already ended. */
  whenEnded(runId: string): Promise<void> | null {
    const r = this.live.get(runId);
    return r && !r.finished ? r.ended : null;
  }

  liveOwner(runId: string): { ownerId: number | null } | null {
    const r = this.live.get(runId);
    return r ? { ownerId: r.ownerId } : null;
  }

  /** Cancels a live run (or stops it for `reason`); false when it is not running here. */
  cancel(runId: string, reason?: unknown): boolean {
    const r = this.live.get(runId);
    if (!r || r.finished || r.closing) return false;
    r.controller.abort(reason);
    return true;
  }

  publish(runId: string, event: string, data: unknown): HubEvent {
    const r = this.live.get(runId);
    if (!r) throw new Error(`run ${runId} is not live`);
    if (event === 'done' && !r.closing) {
      // `done` promises a stored outcome: complete() sends it once the final write has landed
      r.done = storableValue(data);
      return { seq: 0, event, data: r.done };
    }
    // every stored string valid: jsonb refuses NUL and lone surrogates (runtime/storable.ts)
    const e: HubEvent = { seq: r.base + r.events.length + 1, event, data: storableValue(data) };
    r.events.push(e);
    r.pending.push(e);
    for (const l of r.listeners) l.fn(e);
    // cluster mode: to the other processes at once; one too large to travel is stored now instead
    const large = this.fanout.enabled && this.sendOut(r, e);
    // flush() never rejects: a failed write is queued again and retried (below)
    if (large || r.pending.length >= FLUSH_MAX) void this.flush(r);
    else if (!r.timer) r.timer = setTimeout(() => void this.flush(r), FLUSH_MS);
    return e;
  }

  private sendOut(r: LiveRun, e: HubEvent): boolean {
    const large = this.fanout.sent(r.id, r.lastSent, e);
    r.lastSent = e.seq;
    return large;
  }

  /**
   * Cluster mode: a run that stops here without ending — its worker lost its lease or handed it back
   * (docs/decisions/cluster.md) — is forgotten: its events are stored first when it is handed back
   * (`keep`), nothing more after that (whoever carries it on resumes from its checkpoints), and its
   * subscribers end without `close`, so they reconnect.
   */
  async abandon(runId: string, keep: boolean) {
    const r = this.live.get(runId);
    if (!r || r.finished) return;
    if (keep) await this.flush(r);
    r.closing = true;
    if (r.timer) clearTimeout(r.timer);
    r.timer = null;
    r.pending.length = 0;
    this.end(r, false);
    this.live.delete(runId);
  }

  /** The runs live in this process that have not ended. */
  liveRuns(): string[] {
    return [...this.live.values()].filter((r) => !r.finished).map((r) => r.id);
  }

  private flush(r: LiveRun): Promise<void> {
    if (r.timer) {
      clearTimeout(r.timer);
      r.timer = null;
    }
    const batch = r.pending.splice(0);
    const steps = r.held.splice(0);
    if (steps.length) return this.storeSteps(r, batch, steps);
    if (batch.length) {
      r.flushing = r.flushing.then(() =>
        insertEvents(this.ds, r.id, batch).then(
          () => {
            if (r.failures)
              this.logger.log({ run_id: r.id, failures: r.failures }, 'run events stored again after failed writes');
            r.failures = 0;
          },
          (err) => {
            // back to the front of the queue (seqs stay in order), retried after a backoff
            r.pending.unshift(...batch);
            r.failures++;
            if (r.failures === 1)
              this.logger.warn({ err: errInfo(err), run_id: r.id }, 'could not store run events; retrying');
            if (!r.timer && !r.closing) r.timer = setTimeout(() => void this.flush(r), retryDelay(r.failures));
          },
        ),
      );
    }
    return r.flushing;
  }

  /**
   * Records one checkpoint of the turn (runtime/step-log.ts). `now` (the turn waits for it): stored at
   * once, with the steps held before it and every event still pending, in one statement queued after the
   * writes before it, so the stored events reach at least its `event_seq` and a resume knows what its
   * clients saw. Otherwise the step is held and goes with the next write — the event flush at most
   * FLUSH_MS later, the next step stored at once, or the run's final write, which stores it only when
   * the run can still be resumed (interrupted, awaiting approval): a turn that ends within FLUSH_MS
   * writes no checkpoint at all, where it used to write each step and delete them all at its end.
   */
  checkpoint(runId: string, data: unknown, now: boolean): Promise<void> {
    const r = this.live.get(runId);
    if (!r || r.closing || !r.checkpoints) return Promise.resolve();
    r.held.push({ step: ++r.steps, event_seq: r.base + r.events.length, data: storableValue(data) });
    if (now) return this.flush(r);
    if (!r.timer) r.timer = setTimeout(() => void this.flush(r), FLUSH_MS);
    return Promise.resolve();
  }

  /**
   * Held checkpoints and the events before them, one statement. A failed one is not retried: the events
   * go back to the queue, and no later step is recorded either (a resume replays the stored prefix and
   * redoes the rest).
   */
  private storeSteps(r: LiveRun, batch: HubEvent[], steps: HeldStep[]): Promise<void> {
    const write = r.flushing.then(() =>
      writeCheckpoints(this.ds, r.id, batch, steps).then(
        () => undefined,
        (err) => {
          r.checkpoints = false;
          r.held.length = 0;
          r.pending.unshift(...batch);
          r.failures++;
          this.logger.warn(
            { err: errInfo(err), run_id: r.id },
            'could not store a checkpoint; the run goes on without',
          );
          if (!r.timer && !r.closing) r.timer = setTimeout(() => void this.flush(r), retryDelay(r.failures));
        },
      ),
    );
    r.flushing = write;
    return write;
  }

  /**
   * Ends a run in one write: the held-back `done` and `close` get the next seqs, `persist` stores them
   * with every event still pending and the checkpoints still held (the caller adds the run's outcome to
   * the same statement, and keeps the checkpoints only if the run can still be resumed), and only
   * then do subscribers see `done` and `close` — whoever reads `done` can rely on the run and its
   * history being stored.
   *
   * A failed write is retried with backoff for `waitMs`. If the database is still unavailable then,
   * subscribers get an `error` (`notStored`), then `done` and `close`, so no stream hangs, and the
   * write — now with those events — goes on being retried in the background until it lands: the run
   * is never left `running` while this process lives (and a restart marks it `interrupted`).
   */
  async complete(
    runId: string,
    persist: (events: HubEvent[], steps: HeldStep[]) => Promise<void>,
    opts: CompleteOptions,
  ): Promise<Completion> {
    const r = this.live.get(runId);
    if (!r || r.finished || r.closing) return 'stored';
    r.closing = true;
    if (r.timer) {
      clearTimeout(r.timer);
      r.timer = null;
    }
    await r.flushing;
    const steps = r.held.splice(0);
    const next = r.base + r.events.length + 1;
    const ending = (first: number): HubEvent[] => [
      ...(r.done === undefined ? [] : [{ seq: first, event: 'done', data: r.done }]),
      { seq: r.done === undefined ? first : first + 1, event: 'close', data: {} },
    ];
    const stored = ending(next);
    const deadline = Math.min(Date.now() + opts.waitMs, this.shutdownBy ?? Infinity);
    for (let failures = 0; ;) {
      try {
        await persist([...r.pending, ...stored], steps);
        r.pending.length = 0;
        this.endWith(r, stored);
        return 'stored';
      } catch (err) {
        failures++;
        if (failures === 1)
          this.logger.warn({ err: errInfo(err), run_id: runId }, 'could not store the run outcome; retrying');
        const wait = retryDelay(failures);
        if (Date.now() + wait > deadline) break;
        await delay(wait);
      }
    }
    const last = [{ seq: next, event: 'error', data: opts.notStored }, ...ending(next + 1)];
    this.logger.error(
      { run_id: runId },
      'the run outcome could not be stored; the stream ends with outcome_not_stored and the write is retried in the background',
    );
    const events = [...r.pending, ...last];
    r.pending.length = 0;
    r.unsettled = this.settleLater(r, () => persist(events, steps));
    this.endWith(r, last, false);
    return 'deferred';
  }

  /** Retries the final write until it lands (or the process stops); then the run is forgotten after a linger. */
  private async settleLater(r: LiveRun, write: () => Promise<void>) {
    let last: unknown;
    for (let failures = 1; !this.stopping; failures++) {
      await delay(retryDelay(failures + 4));
      try {
        await write();
        this.logger.log({ run_id: r.id, attempts: failures }, 'the run outcome is stored');
        r.unsettled = null;
        setTimeout(() => this.live.get(r.id) === r && this.live.delete(r.id), LINGER_MS).unref(); // unless it went live again
        return;
      } catch (err) {
        // still unavailable: the first failure was logged when the stream ended; the last one is kept
        // for the line below, should the process stop before a write lands
        last = err;
      }
    }
    if (last !== undefined)
      this.logger.error({ err: errInfo(last), run_id: r.id }, 'stopping with the run outcome still not stored');
  }

  private endWith(r: LiveRun, last: HubEvent[], linger = true) {
    for (const e of last) {
      r.events.push(e);
      for (const l of r.listeners) l.fn(e);
      if (this.fanout.enabled) this.sendOut(r, e);
    }
    this.end(r, linger);
  }

  private end(r: LiveRun, linger = true) {
    r.finished = true;
    r.markEnded();
    for (const l of r.listeners) l.end();
    r.listeners.clear();
    if (linger) setTimeout(() => this.live.get(r.id) === r && this.live.delete(r.id), LINGER_MS).unref(); // unless it went live again
  }

  /**
   * Replays the run's events after `afterSeq`, then tails live events until the run ends.
   * Returns the unsubscribe function. `end` is called once when nothing more will come.
   */
  async subscribe(runId: string, afterSeq: number, fn: Listener, end: () => void): Promise<() => void> {
    let r = this.live.get(runId);
    if (r && afterSeq < r.base) {
      // a resumed run: what it stored before the resume comes from the database, the rest from memory
      const base = r.base;
      for (const e of await storedEvents(this.ds, runId, afterSeq, base)) fn(e);
      afterSeq = base;
      r = this.live.get(runId);
    }
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
    // cluster mode: live in another process (or finished) — stored events, then its batches until `close`
    if (this.fanout.enabled) return this.fanout.tail(runId, afterSeq, fn, end);
    for (const e of await storedEvents(this.ds, runId, afterSeq)) fn(e);
    end();
    return () => undefined;
  }

  /** Tracks a streaming response until it is sent (or its client is gone). */
  trackResponse(res: { once(event: 'close', fn: () => void): unknown; writableEnded?: boolean; destroyed?: boolean }) {
    const done = new Promise<void>((resolve) => res.once('close', resolve));
    this.responses.add(done);
    void done.then(() => this.responses.delete(done));
  }

  /**
   * SIGTERM (docs/OPERATIONS.md, "Shutdown"): every live run is stopped (its turn ends `interrupted`
   * with `server_shutdown`, recorded like any end, so its streams get `error`, `done`, `close`), and
   * the HTTP server closes only once they have ended — at most 80 % of SHUTDOWN_DEADLINE_MS, leaving
   * the rest for closing. A run that cannot end in time (its final write keeps failing) gets its
   * streams ended without `close`, so clients reconnect with Last-Event-ID; the next boot marks it
   * `interrupted`.
   */
  async beforeApplicationShutdown() {
    const budget = Math.floor(this.config.shutdownDeadlineMs * 0.8);
    this.shutdownBy = Date.now() + budget;
    // cluster mode: streams of runs live elsewhere end reconnectable (the client goes on with another replica)
    if (this.fanout.enabled) this.fanout.endAll();
    const open = [...this.live.values()].filter((r) => !r.finished);
    if (!open.length && !this.responses.size) return;
    this.logger.warn(
      { runs: open.length, deadline_ms: this.config.shutdownDeadlineMs },
      'shutting down: stopping live runs',
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, budget)));
    if (this.config.role === 'worker') {
      // a cluster worker gives its runs half the time to finish, then hands the rest back to the queue:
      // another worker resumes them from their checkpoints (docs/decisions/cluster.md, "Shutdown")
      await Promise.race([Promise.all(open.map((r) => r.ended)), delay(budget / 2)]);
      for (const r of open) if (!r.finished) r.controller.abort({ code: 'handback', requeue: true });
    } else for (const r of open) r.controller.abort({ code: 'shutdown' });
    await Promise.race([Promise.all(open.map((r) => r.ended)), timeout]);
    for (const r of open) {
      if (r.finished) continue;
      this.logger.error({ run_id: r.id }, 'run did not end before the shutdown deadline');
      for (const l of r.listeners) l.end();
      r.listeners.clear();
    }
    // the streams have their last events: let them reach the clients before connections are closed
    await Promise.race([Promise.all([...this.responses]), timeout]);
    clearTimeout(timer);
  }

  async onApplicationShutdown() {
    this.stopping = true;
    for (const r of this.live.values()) {
      if (!r.finished) r.controller.abort({ code: 'shutdown' });
      if (r.timer) clearTimeout(r.timer);
    }
  }
}

function delay(ms: number) {
  return new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
}
