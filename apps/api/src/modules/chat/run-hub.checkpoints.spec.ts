import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../platform/config/app-config';
import { FLUSH_MS, type HeldStep, type HubEvent } from './live-run';
import type { RunFanout } from './run-fanout';
import { RunHub } from './run-hub';

/**
 * A database that records the statements of the hub: checkpoint writes (`ds.query`, run-event-store.ts)
 * and event batches (the query builder's insert). `failCheckpoints` makes checkpoint writes fail.
 */
function recordingDb() {
  const checkpointWrites: Array<{ events: number[]; steps: number[] }> = [];
  const eventWrites: number[][] = [];
  let failCheckpoints = false;
  const ds = {
    query: async (sql: string, params: string[]) => {
      if (!sql.includes('run_checkpoints')) throw new Error(`unexpected statement: ${sql}`);
      if (failCheckpoints) throw new Error('database unavailable');
      checkpointWrites.push({
        events: (JSON.parse(params[1]) as HubEvent[]).map((e) => e.seq),
        steps: (JSON.parse(params[2]) as HeldStep[]).map((s) => s.step),
      });
      return [];
    },
    createQueryBuilder: () => {
      let rows: Array<{ seq: number }> = [];
      const qb = {
        insert: () => qb,
        into: () => qb,
        values: (v: Array<{ seq: number }>) => ((rows = v), qb),
        orIgnore: () => qb,
        execute: async () => void eventWrites.push(rows.map((r) => r.seq)),
      };
      return qb;
    },
  };
  return {
    ds: ds as unknown as DataSource,
    checkpointWrites,
    eventWrites,
    failCheckpoints: () => (failCheckpoints = true),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const options = { waitMs: 1000, notStored: { code: 'outcome_not_stored', message: 'not stored' } };

function hubWith(db: ReturnType<typeof recordingDb>) {
  const hub = new RunHub(db.ds, {} as AppConfig, { enabled: false } as RunFanout);
  hub.start('run-1', 1, new AbortController());
  return hub;
}

/** Ends the run; resolves to what its final write was given. */
async function finish(hub: RunHub) {
  let given: { events: number[]; steps: number[] } | null = null;
  await hub.complete(
    'run-1',
    async (events, steps) => {
      given = { events: events.map((e) => e.seq), steps: steps.map((s) => s.step) };
    },
    options,
  );
  return given!;
}

test('a turn that ends within FLUSH_MS writes no checkpoint: its steps go to the final write', async () => {
  const db = recordingDb();
  const hub = hubWith(db);
  hub.publish('run-1', 'node', { state: 'started' });
  await hub.checkpoint('run-1', { step: 'node', node_key: 'a' }, false);
  hub.publish('run-1', 'content', { delta: 'hi' });
  await hub.checkpoint('run-1', { step: 'model', text: 'hi', tool_calls: [] }, false);
  expect(await finish(hub)).toEqual({ events: [1, 2, 3], steps: [1, 2] });
  expect(db.checkpointWrites).toEqual([]);
  expect(db.eventWrites).toEqual([]);
});

test('a step the turn waits for is stored at once, with the steps held before it and the events so far', async () => {
  const db = recordingDb();
  const hub = hubWith(db);
  hub.publish('run-1', 'node', { state: 'started' });
  await hub.checkpoint('run-1', { step: 'node', node_key: 'a' }, false);
  hub.publish('run-1', 'tool_call', { name: 'write_file' });
  await hub.checkpoint('run-1', { step: 'model', text: '', tool_calls: [{ id: 'c1' }] }, true);
  expect(db.checkpointWrites).toEqual([{ events: [1, 2], steps: [1, 2] }]);
  expect(await finish(hub)).toEqual({ events: [3], steps: [] });
});

test('a held step is stored with the event flush, FLUSH_MS after it', async () => {
  const db = recordingDb();
  const hub = hubWith(db);
  await hub.checkpoint('run-1', { step: 'node', node_key: 'a' }, false);
  hub.publish('run-1', 'content', { delta: 'slow' });
  await sleep(FLUSH_MS + 100);
  expect(db.checkpointWrites).toEqual([{ events: [1], steps: [1] }]);
  hub.publish('run-1', 'content', { delta: 'more' });
  await sleep(FLUSH_MS + 100);
  // no step held: a plain event batch
  expect(db.eventWrites).toEqual([[2]]);
  expect(await finish(hub)).toEqual({ events: [3], steps: [] });
});

test('after a failed checkpoint write no step is recorded; its events are written again', async () => {
  const db = recordingDb();
  const hub = hubWith(db);
  db.failCheckpoints();
  hub.publish('run-1', 'node', { state: 'started' });
  await hub.checkpoint('run-1', { step: 'model', text: '', tool_calls: [{ id: 'c1' }] }, true);
  await hub.checkpoint('run-1', { step: 'tool', call_id: 'c1' }, false);
  expect(await finish(hub)).toEqual({ events: [1, 2], steps: [] });
  expect(db.checkpointWrites).toEqual([]);
});
