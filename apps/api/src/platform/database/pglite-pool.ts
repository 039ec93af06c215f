/**
 * A pg-compatible pool over one embedded PGlite instance, for TypeORM's postgres driver.
 *
 * PGlite is a single session, so "connections" are handed out one at a time: a TypeORM query runner
 * holds the lock from connect() to release(), which keeps transactions isolated (a plain shared
 * session would let concurrent requests' statements run inside someone else's BEGIN/ROLLBACK).
 * Results are mapped to the shape of `pg` (rowCount, command) that TypeORM reads.
 * No maintained package does this correctly (typeorm-pglite shares one session without a lock).
 */
import { EventEmitter } from 'node:events';
import { PGlite, types } from '@electric-sql/pglite';

type Callback = (err: Error | null, client?: unknown, release?: (err?: unknown) => void) => void;

const ACQUIRE_TIMEOUT_MS = 30_000;

export class PgliteHandle {
  private db: PGlite | null = null;
  private opening: Promise<PGlite> | null = null;
  private queue: Array<() => void> = [];
  private busy = false;

  constructor(private readonly dataDir: string) {}

  open(): Promise<PGlite> {
    if (this.db) return Promise.resolve(this.db);
    if (!this.opening) {
      this.opening = PGlite.create({
        dataDir: this.dataDir,
        serializers: {
          [types.BOOL]: (v: unknown) => (v === true || v === 'true' || v === 1 ? 'TRUE' : v === false || v === 'false' || v === 0 ? 'FALSE' : String(v)),
        },
      }).then((db) => (this.db = db));
    }
    return this.opening;
  }

  /** Waits for exclusive use of the session; returns the release function. */
  acquire(): Promise<() => void> {
    return new Promise((resolve, reject) => {
      let released = false;
      const grant = () => {
        clearTimeout(timer);
        this.busy = true;
        resolve(() => {
          if (released) return;
          released = true;
          const next = this.queue.shift();
          if (next) next();
          else this.busy = false;
        });
      };
      const timer = setTimeout(() => {
        const i = this.queue.indexOf(grant);
        if (i >= 0) this.queue.splice(i, 1);
        reject(new Error('embedded database busy: could not get the session in time'));
      }, ACQUIRE_TIMEOUT_MS);
      if (!this.busy) grant();
      else this.queue.push(grant);
    });
  }

  async run(sql: string, params?: unknown[]) {
    const db = await this.open();
    if (params && params.length > 0) {
      const r = await db.query(sql, params);
      return toPgResult(sql, r.rows as unknown[], r.affectedRows);
    }
    const results = await db.exec(sql);
    const last = results[results.length - 1];
    return toPgResult(sql, (last?.rows as unknown[]) ?? [], last?.affectedRows);
  }

  async close() {
    const db = this.db;
    this.db = null;
    this.opening = null;
    if (db) await db.close();
  }
}

function toPgResult(sql: string, rows: unknown[], affected: number | undefined) {
  const command = (/^\s*(\w+)/.exec(sql)?.[1] ?? '').toUpperCase();
  return { rows, rowCount: affected ?? rows.length, command };
}

class PgliteClient extends EventEmitter {
  constructor(private readonly handle: PgliteHandle) {
    super();
  }
  query(sql: string, params?: unknown[] | ((e: Error | null, r?: unknown) => void), cb?: (e: Error | null, r?: unknown) => void) {
    if (typeof params === 'function') {
      cb = params;
      params = undefined;
    }
    const p = this.handle.run(sql, params as unknown[] | undefined);
    if (cb) {
      const done = cb;
      p.then((r) => done(null, r), (e) => done(e));
    }
    return p;
  }
}

/** Builds the `driver` object TypeORM's postgres driver expects (`new driver.Pool(options)`). */
export function pgliteDriver(handle: PgliteHandle) {
  class Pool extends EventEmitter {
    connect(cb?: Callback) {
      const p = (async () => {
        await handle.open();
        const release = await handle.acquire();
        return { client: new PgliteClient(handle), release };
      })();
      if (!cb) return p.then(({ client, release }) => Object.assign(client, { release }));
      p.then(({ client, release }) => cb(null, client, () => release()), (e) => cb(e));
      return undefined;
    }
    async query(sql: string, params?: unknown[]) {
      const release = await handle.acquire();
      try {
        return await handle.run(sql, params);
      } finally {
        release();
      }
    }
    end(cb?: (err?: Error | null) => void) {
      const p = handle.close();
      if (cb) p.then(() => cb(null), (e) => cb(e));
      return p;
    }
  }
  return { Pool, defaults: {} };
}
