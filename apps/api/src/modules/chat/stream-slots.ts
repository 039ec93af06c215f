/** Caps concurrent open streams per user (anonymous: per client address). */
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { DomainError } from '../../platform/errors/domain-error';

@Injectable()
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

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
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    };
  }
}
