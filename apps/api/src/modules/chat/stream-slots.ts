/**
 * Caps concurrent open streams per user (anonymous: per client address). With ROLE=all they are counted
 * in memory; in cluster mode the cap holds across every API process, through shared slots in the
 * database (limits/shared-slots.ts). The `open_streams` gauge counts this process's streams either way.
 */
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { DomainError } from '../../platform/errors/domain-error';
import { SharedSlots } from '../limits/shared-slots';
import { AppMetrics } from '../telemetry/app-metrics';

@Injectable()
export class StreamSlots {
  private readonly open = new Map<string, number>();
  private total = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    metrics: AppMetrics,
    private readonly shared: SharedSlots,
  ) {
    metrics.addGauge('open_streams', 'Event streams (SSE) open on this process.', () => this.total);
  }

  /** Takes a slot or throws 429; resolves to the release function (idempotent). */
  async acquire(key: string): Promise<() => void> {
    if (!this.shared.enabled) return this.acquireHere(key);
    const releaseShared = await this.shared.acquire(`stream:${key}`, this.config.maxStreamsPerUser);
    if (!releaseShared) throw this.tooMany();
    return this.counted(releaseShared);
  }

  /** Counts the stream open here until `release` (made idempotent) is called. */
  private counted(release: () => void): () => void {
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      release();
    };
  }

  private tooMany() {
    return new DomainError(
      'stream.too_many',
      `At most ${this.config.maxStreamsPerUser} streams may be open at once; close one first.`,
      undefined,
      { 'Retry-After': '5' },
    );
  }

  /** ROLE=all: this process is the only one, so counting here is counting everywhere. */
  private acquireHere(key: string): () => void {
    const n = this.open.get(key) ?? 0;
    if (n >= this.config.maxStreamsPerUser) throw this.tooMany();
    this.open.set(key, n + 1);
    return this.counted(() => {
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    });
  }
}
