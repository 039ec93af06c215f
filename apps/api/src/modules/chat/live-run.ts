/** The run hub's parts: one live run, its event type, and the write retry schedule (run-hub.ts). */
export interface HubEvent {
  seq: number;
  event: string;
  data: unknown;
}

export type Listener = (e: HubEvent) => void;

/** A checkpoint waiting for its write: its number, the last event seq before it, the step. */
export interface HeldStep {
  step: number;
  event_seq: number;
  data: unknown;
}

export const FLUSH_MS = 200;
export const FLUSH_MAX = 200;
/** Backoff between retries of a failed write: doubles from the first to the last. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2_000;

export function retryDelay(failures: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.max(0, failures - 1));
}

/** How complete() ended: stored, or shown to subscribers but still to be stored (retried in the background). */
export type Completion = 'stored' | 'deferred';

export interface CompleteOptions {
  /** how long to keep retrying the final write before the stream ends with `outcome_not_stored` */
  waitMs: number;
  /** the `error` event subscribers get when the wait runs out */
  notStored: { code: string; message: string };
}
/**
 * Keep a finished run in memory briefly so a client reconnecting right after `close` replays from memory.
 * Only a shortcut: a finished run's events are all stored, so a later reader replays them from the
 * database. Kept short because under sustained load every run held here costs memory (its events):
 * at 100 turns/s a 30 s linger held ~3,000 runs (docs/performance.md, "Start and memory").
 */
export const LINGER_MS = 3_000;

/** A run live in this process: its events, subscribers and pending writes (run-hub.ts). */
export class LiveRun {
  events: HubEvent[] = [];
  listeners = new Set<{ fn: Listener; end: () => void }>();
  pending: HubEvent[] = [];
  flushing: Promise<void> = Promise.resolve();
  timer: NodeJS.Timeout | null = null;
  failures = 0;
  /** the runtime's `done`, held back until the outcome is stored (then sent, or preceded by an `error`) */
  done: unknown = undefined;
  /** the final write has begun: the run can no longer be cancelled */
  closing = false;
  finished = false;
  /** finished for subscribers, but its outcome is not stored yet */
  unsettled: Promise<void> | null = null;
  /** a resumed run goes on after the seqs it stored before (docs/decisions/runtime.md, "Durable runs") */
  base = 0;
  /** checkpoints recorded; after a failed write none is, so the stored ones stay a prefix of the turn */
  steps = 0;
  checkpoints = true;
  /** recorded steps not stored yet: they go with the next write (run-hub.ts, `checkpoint`) */
  held: HeldStep[] = [];
  /** cluster mode: the seq of the last event sent to the other processes (run-fanout.ts) */
  lastSent = 0;
  /** resolves when subscribers have been told the run ended */
  readonly ended: Promise<void>;
  markEnded: () => void = () => undefined;
  constructor(
    readonly id: string,
    readonly ownerId: number | null,
    readonly controller: AbortController,
  ) {
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
  }
}
