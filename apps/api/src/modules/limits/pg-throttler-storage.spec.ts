import assert from 'node:assert/strict';
import type { AppConfig } from '../../platform/config/app-config';
import { PgThrottlerStorage, storageKey, toThrottlerRecord } from './pg-throttler-storage';

describe('toThrottlerRecord: the upsert row as the throttler guard reads it', () => {
  test('under the limit: not blocked, whole seconds rounded up', () => {
    assert.deepEqual(toThrottlerRecord({ hits: 3, expire_ms: 41_200.5, block_ms: 0 }, 10, 60_000), {
      totalHits: 3,
      timeToExpire: 42,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
  });

  test('a block in force: blocked until it ends (numeric columns may come back as strings)', () => {
    assert.deepEqual(toThrottlerRecord({ hits: '11', expire_ms: '30000', block_ms: '59000.1' }, 10, 60_000), {
      totalHits: 11,
      timeToExpire: 30,
      isBlocked: true,
      timeToBlockExpire: 60,
    });
  });

  test('without a block duration: over the limit until the window ends', () => {
    assert.deepEqual(toThrottlerRecord({ hits: 4, expire_ms: 9_000, block_ms: 0 }, 3, 0), {
      totalHits: 4,
      timeToExpire: 9,
      isBlocked: true,
      timeToBlockExpire: 9,
    });
    assert.equal(toThrottlerRecord({ hits: 3, expire_ms: 9_000, block_ms: 0 }, 3, 0).isBlocked, false);
  });
});

test('storageKey keeps short keys and hashes long ones (a tracker can come from a request body)', () => {
  assert.equal(storageKey('demo:ip:10.0.0.1'), 'demo:ip:10.0.0.1');
  const long = storageKey('user:' + 'x'.repeat(10_000));
  assert.match(long, /^sha256:[0-9a-f]{64}$/);
  assert.equal(long, storageKey('user:' + 'x'.repeat(10_000)));
  assert.notEqual(long, storageKey('user:' + 'x'.repeat(10_001)));
});

test('increment sends one statement with the key, ttl, limit and block duration, and reads its row', async () => {
  const calls: unknown[][] = [];
  const ds = {
    query: async (...args: unknown[]) => {
      calls.push(args);
      return [{ hits: 1, expire_ms: 60_000, block_ms: 0 }];
    },
  };
  const storage = new PgThrottlerStorage(ds as never, { role: 'api' } as AppConfig);
  const r = await storage.increment('user:alice', 60_000, 10, 60_000, 'user');
  assert.deepEqual(r, { totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
  assert.equal(calls.length, 1);
  assert.match(String(calls[0][0]), /INSERT INTO rate_limit_hits[\s\S]*ON CONFLICT \(key\) DO UPDATE[\s\S]*RETURNING/);
  assert.deepEqual(calls[0][1], ['user:alice', 60_000, 10, 60_000]);
});

test('the sweep of expired rows runs only in cluster mode', () => {
  jest.useFakeTimers();
  try {
    let swept = 0;
    const ds = { query: async () => void swept++ };
    const single = new PgThrottlerStorage(ds as never, { role: 'all' } as AppConfig);
    const cluster = new PgThrottlerStorage(ds as never, { role: 'api' } as AppConfig);
    single.onApplicationBootstrap();
    cluster.onApplicationBootstrap();
    jest.advanceTimersByTime(60_000);
    assert.equal(swept, 1);
    cluster.onApplicationShutdown();
    single.onApplicationShutdown();
    jest.advanceTimersByTime(120_000);
    assert.equal(swept, 1);
  } finally {
    jest.useRealTimers();
  }
});
