import assert from 'node:assert/strict';
import type { AppConfig } from '../../platform/config/app-config';
import { DomainError } from '../../platform/errors/domain-error';
import type { SharedSlots } from '../limits/shared-slots';
import { AppMetrics } from '../telemetry/app-metrics';
import { StreamSlots } from './stream-slots';

/** A stand-in for the database's shared slots: `taken` per key, shared by every StreamSlots given it. */
function fakeShared(enabled: boolean) {
  const taken = new Map<string, number>();
  let calls = 0;
  const shared = {
    enabled,
    acquire: async (key: string, cap: number) => {
      calls++;
      const n = taken.get(key) ?? 0;
      if (n >= cap) return null;
      taken.set(key, n + 1);
      return () => taken.set(key, (taken.get(key) ?? 1) - 1);
    },
  };
  return { shared: shared as unknown as SharedSlots, taken, calls: () => calls };
}

const gauge = async (m: AppMetrics) =>
  (await m.registry.getSingleMetric('agentic_open_streams')?.get())?.values[0]?.value;

async function refused(p: Promise<unknown>) {
  await assert.rejects(p, (e: unknown) => e instanceof DomainError && e.code === 'stream.too_many');
}

test('ROLE=all: counted in this process, never asking the shared slots', async () => {
  const f = fakeShared(false);
  const metrics = new AppMetrics();
  const slots = new StreamSlots({ maxStreamsPerUser: 2 } as AppConfig, metrics, f.shared);
  const a = await slots.acquire('u:1');
  await slots.acquire('u:1');
  await refused(slots.acquire('u:1'));
  await slots.acquire('u:2');
  assert.equal(await gauge(metrics), 3);
  a();
  a(); // idempotent
  assert.equal(await gauge(metrics), 2);
  await slots.acquire('u:1');
  assert.equal(f.calls(), 0);
});

test('cluster mode: the cap holds across processes; the gauge counts this process only', async () => {
  const f = fakeShared(true);
  const config = { maxStreamsPerUser: 2 } as AppConfig;
  const m1 = new AppMetrics();
  const m2 = new AppMetrics();
  const one = new StreamSlots(config, m1, f.shared);
  const two = new StreamSlots(config, m2, f.shared);
  const r1 = await one.acquire('u:1');
  await two.acquire('u:1');
  await refused(one.acquire('u:1'));
  await refused(two.acquire('u:1'));
  assert.equal(f.taken.get('stream:u:1'), 2);
  assert.deepEqual([await gauge(m1), await gauge(m2)], [1, 1]);
  r1();
  r1();
  assert.equal(f.taken.get('stream:u:1'), 1);
  assert.equal(await gauge(m1), 0);
  await two.acquire('u:1');
  assert.equal(await gauge(m2), 2);
});
