import assert from 'node:assert/strict';
import type { AppConfig } from '../../platform/config/app-config';
import { LEASE_MS, RENEW_MS, SharedSlots, SLOT_LOCK_CLASS } from './shared-slots';

/** A DataSource stand-in recording statements; `free` says whether the slot insert finds room. */
function fakeDs(free: () => boolean) {
  const statements: Array<{ sql: string; params?: unknown[] }> = [];
  const query = async (sql: string, params?: unknown[]) => {
    statements.push({ sql: sql.replace(/\s+/g, ' ').trim(), params });
    return sql.includes('INSERT INTO limit_slots') ? (free() ? [{ id: params?.[0] }] : []) : [];
  };
  const ds = { query, transaction: async <T>(fn: (m: { query: typeof query }) => Promise<T>) => fn({ query }) };
  return { ds: ds as never, statements };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('taking a slot: the key is locked, then the insert counts live rows against the cap', async () => {
  const f = fakeDs(() => true);
  const slots = new SharedSlots(f.ds, { role: 'api' } as AppConfig);
  assert.equal(slots.enabled, true);
  const release = await slots.acquire('stream:u:1', 4);
  assert.ok(release);
  assert.equal(f.statements.length, 2);
  assert.match(f.statements[0].sql, /pg_advisory_xact_lock\(\$1, hashtext\(\$2\)\)/);
  assert.deepEqual(f.statements[0].params, [SLOT_LOCK_CLASS, 'stream:u:1']);
  assert.match(f.statements[1].sql, /INSERT INTO limit_slots .* count\(\*\) .* < \$3::int/);
  assert.deepEqual(f.statements[1].params?.slice(1), ['stream:u:1', 4, LEASE_MS]);
});

test('a full key gives null and holds nothing', async () => {
  const f = fakeDs(() => false);
  const slots = new SharedSlots(f.ds, { role: 'api' } as AppConfig);
  assert.equal(await slots.acquire('demo:ip:1', 1), null);
  f.statements.length = 0;
  await slots.renew();
  assert.deepEqual(f.statements, [], 'nothing held: nothing to renew');
});

test("one UPDATE renews all this process's slots; a release deletes its row once and stops renewing it", async () => {
  jest.useFakeTimers({ doNotFake: ['setImmediate'] });
  try {
    const f = fakeDs(() => true);
    const slots = new SharedSlots(f.ds, { role: 'worker' } as AppConfig);
    slots.onApplicationBootstrap();
    const one = (await slots.acquire('stream:u:1', 4))!;
    const two = (await slots.acquire('stream:u:2', 4))!;
    const ids = [f.statements[1].params![0], f.statements[3].params![0]];
    f.statements.length = 0;
    jest.advanceTimersByTime(RENEW_MS);
    await settle();
    assert.equal(f.statements.length, 1);
    assert.match(f.statements[0].sql, /^UPDATE limit_slots SET expires_at = .* WHERE id = ANY\(\$1::uuid\[\]\)$/);
    assert.deepEqual(f.statements[0].params, [ids, LEASE_MS]);

    f.statements.length = 0;
    one();
    one();
    await settle();
    assert.deepEqual(f.statements, [{ sql: 'DELETE FROM limit_slots WHERE id = $1', params: [ids[0]] }]);
    f.statements.length = 0;
    jest.advanceTimersByTime(RENEW_MS);
    await settle();
    assert.deepEqual(f.statements[0].params, [[ids[1]], LEASE_MS]);
    two();
    slots.onApplicationShutdown();
  } finally {
    jest.useRealTimers();
  }
});

test('ROLE=all: disabled, no timer', () => {
  jest.useFakeTimers();
  try {
    const f = fakeDs(() => true);
    const slots = new SharedSlots(f.ds, { role: 'all' } as AppConfig);
    assert.equal(slots.enabled, false);
    slots.onApplicationBootstrap();
    jest.advanceTimersByTime(10 * RENEW_MS);
    assert.deepEqual(f.statements, []);
  } finally {
    jest.useRealTimers();
  }
});
