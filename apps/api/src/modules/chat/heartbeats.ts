/**
 * Keepalive comments for open streams: one timer for all of them (not one per stream). A stream
 * that has sent nothing for HEARTBEAT_MS gets a comment on the next tick.
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
  private readonly tickMs: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.everyMs = config.heartbeatMs;
    this.tickMs = Math.max(10, Math.min(config.heartbeatMs, 5000));
  }

  add(send: () => void): Beat {
    const entry: Entry = { last: Date.now(), send };
    this.entries.add(entry);
    if (!this.timer) this.timer = setInterval(this.tick, this.tickMs);
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

  private readonly tick = () => {
    const now = Date.now();
    for (const e of this.entries) {
      if (now - e.last >= this.everyMs) {
        e.last = now;
        e.send();
      }
    }
  };

  private stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  onModuleDestroy() {
    this.entries.clear();
    this.stop();
  }
}
