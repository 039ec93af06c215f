import assert from 'node:assert/strict';
import type { AppConfig } from '../../platform/config/app-config';
import { Heartbeats } from './heartbeats';

const heartbeats = (ms: number) => new Heartbeats({ heartbeatMs: ms } as AppConfig);

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

test('a quiet stream gets one beat per interval; a busy one none; a removed one none', () => {
  const hb = heartbeats(30);
  let quiet = 0;
  let busy = 0;
  let gone = 0;
  hb.add(() => quiet++);
  const b = hb.add(() => busy++);
  const g = hb.add(() => gone++);
  g.remove();
  g.remove(); // idempotent
  for (let i = 0; i < 20; i++) {
    jest.advanceTimersByTime(10);
    b.touch();
  }
  assert.equal(quiet, 6, '200 ms quiet at 30 ms → 6 beats');
  assert.equal(busy, 0);
  assert.equal(gone, 0);
  hb.onModuleDestroy();
});

test('the shared timer stops with the last stream and starts again for the next', () => {
  const hb = heartbeats(20);
  let n = 0;
  hb.add(() => n++).remove();
  for (let i = 0; i < 10; i++) jest.advanceTimersByTime(10);
  assert.equal(n, 0);
  const two = hb.add(() => n++);
  for (let i = 0; i < 4; i++) jest.advanceTimersByTime(10);
  assert.equal(n, 2);
  two.remove();
  for (let i = 0; i < 10; i++) jest.advanceTimersByTime(10);
  assert.equal(n, 2);
  hb.onModuleDestroy();
});

test('a quiet stream gets its beat exactly one interval after its last event', () => {
  const hb = heartbeats(15_000);
  let n = 0;
  const beat = hb.add(() => n++);
  jest.advanceTimersByTime(7_000);
  beat.touch(); // an event at 7 s: the next beat is due at 22 s
  jest.advanceTimersByTime(14_999);
  assert.equal(n, 0);
  jest.advanceTimersByTime(1);
  assert.equal(n, 1, 'at 22 s, not at the next 5-second tick');
  jest.advanceTimersByTime(15_000);
  assert.equal(n, 2);
  hb.onModuleDestroy();
});
