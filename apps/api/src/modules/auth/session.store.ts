/** express-session store over the `sessions` table, so sessions survive a restart and logout is final. */
import session from 'express-session';
import { LessThan, type DataSource, type Repository } from 'typeorm';
import { SessionRecord } from './session.entity';

type Cb = (err?: unknown, data?: session.SessionData | null) => void;

export class DatabaseSessionStore extends session.Store {
  private readonly repo: Repository<SessionRecord>;
  private lastSweep = 0;

  constructor(
    ds: DataSource,
    private readonly ttlMs: number,
  ) {
    super();
    this.repo = ds.getRepository(SessionRecord);
  }

  private expiry(sess: session.SessionData) {
    const exp = sess.cookie?.expires ? new Date(sess.cookie.expires) : null;
    return exp && !Number.isNaN(exp.getTime()) ? exp : new Date(Date.now() + this.ttlMs);
  }

  private userId(sess: session.SessionData): number | null {
    const u = (sess as unknown as { passport?: { user?: unknown } }).passport?.user;
    return typeof u === 'number' ? u : null;
  }

  override get(sid: string, cb: Cb) {
    this.repo
      .findOneBy({ sid })
      .then((row) => {
        if (!row || row.expires_at.getTime() <= Date.now()) return cb(null, null);
        cb(null, row.sess as unknown as session.SessionData);
      })
      .catch((e) => cb(e));
  }

  override set(sid: string, sess: session.SessionData, cb?: (err?: unknown) => void) {
    this.repo
      .upsert({ sid, sess: sess as never, user_id: this.userId(sess), expires_at: this.expiry(sess) }, ['sid'])
      .then(() => this.sweep())
      .then(
        () => cb?.(),
        (e) => cb?.(e),
      );
  }

  override touch(sid: string, sess: session.SessionData, cb?: (err?: unknown) => void) {
    this.repo.update({ sid }, { expires_at: this.expiry(sess) }).then(
      () => cb?.(),
      (e) => cb?.(e),
    );
  }

  override destroy(sid: string, cb?: (err?: unknown) => void) {
    this.repo.delete({ sid }).then(
      () => cb?.(),
      (e) => cb?.(e),
    );
  }

  /** Deletes expired rows at most once an hour, piggybacking on writes. */
  private async sweep() {
    if (Date.now() - this.lastSweep < 3_600_000) return;
    this.lastSweep = Date.now();
    await this.repo.delete({ expires_at: LessThan(new Date()) });
  }
}
