/** Caps concurrent open streams per user (anonymous: per client address). */
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { DomainError } from '../../platform/errors/domain-error';
import { AppMetrics } from '../telemetry/app-metrics';

@Injectable()
export class StreamSlots {
  private readonly open = new Map<string, number>();
  private total = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    metrics: AppMetrics,
  ) {
    metrics.addGauge('open_streams', 'Event streams (SSE) open on this process.', () => this.total);
  }

  /** Takes a slot or throws 429; returns the release function (idempotent). */
  acquire(key: string): () => void {
    const n = this.open.get(key) ?? 0;
    if (n >= this.config.maxStreamsPerUser) {
      throw new DomainError(
        'stream.too_many',
        `At most ${this.config.maxStreamsPerUser} streams may be open at once; close one first.`,
        undefined,
        { 'Retry-After': '5' },
      );
    }
    this.open.set(key, n + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    };
  }
}
