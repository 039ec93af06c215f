/**
 * Keepalive comments for open streams: one timer for all of them (not one per stream). A stream
 * that has sent nothing for SSE_HEARTBEAT_MS gets a comment then — the timer is armed for the earliest
 * moment a stream falls due, so the beat comes every 15 s of quiet, not 15–20 s (docs/API.md, "The stream").
 */
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';

export interface Beat {
  /** The stream just sent something: its quiet period starts again. */
  touch(): void;
  /** The stream ended. Idempotent. */
  remove(): void;
}

interface Entry {
  last: number;
  send: () => void;
}

@Injectable()
export class Heartbeats implements OnModuleDestroy {
  private readonly entries = new Set<Entry>();
  private timer: NodeJS.Timeout | null = null;
  private readonly everyMs: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.everyMs = Math.max(1, config.heartbeatMs);
  }

  add(send: () => void): Beat {
    const entry: Entry = { last: Date.now(), send };
    this.entries.add(entry);
    if (!this.timer) this.arm(this.everyMs);
    return {
      touch: () => {
        entry.last = Date.now();
      },
      remove: () => {
        this.entries.delete(entry);
        if (!this.entries.size) this.stop();
      },
    };
  }

  private arm(ms: number) {
    this.timer = setTimeout(this.tick, ms);
    this.timer.unref();
  }

  private readonly tick = () => {
    this.timer = null;
    const now = Date.now();
    let next = Infinity;
    for (const e of this.entries) {
      if (now - e.last >= this.everyMs) {
        e.last = now;
        e.send();
      }
      next = Math.min(next, e.last + this.everyMs);
    }
    if (this.entries.size) this.arm(Math.max(1, next - now));
  };

  private stop() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  onModuleDestroy() {
    this.entries.clear();
    this.stop();
  }
}
