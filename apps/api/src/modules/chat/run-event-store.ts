/**
 * The run hub's statements: event batches, checkpoints (with the events before them, one statement) and
 * replays of stored events. Inserts ignore rows already stored, so a retried write is not doubled.
 */
import type { DataSource } from 'typeorm';
import type { HeldStep, HubEvent } from './live-run';
import { RunEvent } from './run-event.entity';

export function insertEvents(ds: DataSource, runId: string, batch: HubEvent[]) {
  return ds
    .createQueryBuilder()
    .insert()
    .into(RunEvent)
    .values(batch.map((e) => ({ run_id: runId, seq: e.seq, event: e.event, data: e.data as never })))
    .orIgnore()
    .execute();
}

/**
 * Checkpoints (runtime/step-log.ts) and the events pending before them, in one statement, committed
 * without waiting for the WAL flush (`synchronous_commit` off for this transaction only): the threat is
 * this process dying, which loses nothing committed; a crash of the database itself may lose the last
 * ~200 ms of checkpoints, whose steps a resume then redoes. A later synchronous commit (a tool's file
 * write) flushes them first, so a write that survives always has the checkpoint of the model response
 * that asked for it (docs/decisions/runtime.md, "Durable runs").
 */
export async function writeCheckpoints(
  ds: DataSource,
  runId: string,
  batch: HubEvent[],
  steps: HeldStep[],
): Promise<void> {
  await ds.query(
    `WITH async AS (SELECT set_config('synchronous_commit', 'off', true)),
          ev AS (INSERT INTO run_events (run_id, seq, event, data) SELECT $1, x.seq, x.event, x.data FROM jsonb_to_recordset($2::jsonb) AS x(seq integer, event varchar, data jsonb) ON CONFLICT DO NOTHING)
     INSERT INTO run_checkpoints (run_id, step, event_seq, data)
     SELECT $1, x.step, x.event_seq, x.data FROM async, jsonb_to_recordset($3::jsonb) AS x(step integer, event_seq integer, data jsonb)
     ON CONFLICT DO NOTHING`,
    [runId, JSON.stringify(batch), JSON.stringify(steps)],
  );
}

/** A stored `done` without its reply (kept once, in history or on the run row) gets it back. */
async function withReply(ds: DataSource, runId: string, data: unknown): Promise<unknown> {
  if (!data || typeof data !== 'object' || 'reply' in data) return data;
  const [row]: Array<{ reply: string }> = await ds.query(
    `SELECT COALESCE((SELECT content FROM messages WHERE run_id = $1 AND role = 'assistant' LIMIT 1),
                     (SELECT reply FROM runs WHERE id = $1), '') AS reply`,
    [runId],
  );
  return { ...data, reply: row?.reply ?? '' };
}

/** The stored events after `afterSeq` (up to `upTo`), a stored `done` with its reply put back. */
export async function storedEvents(
  ds: DataSource,
  runId: string,
  afterSeq: number,
  upTo = 2 ** 31 - 1,
): Promise<HubEvent[]> {
  const rows = await ds
    .getRepository(RunEvent)
    .createQueryBuilder('e')
    .where('e.run_id = :runId AND e.seq > :afterSeq AND e.seq <= :upTo', { runId, afterSeq, upTo })
    .orderBy('e.seq', 'ASC')
    .getMany();
  const out: HubEvent[] = [];
  for (const row of rows) {
    const data = row.event === 'done' ? await withReply(ds, runId, row.data) : row.data;
    out.push({ seq: row.seq, event: row.event, data });
  }
  return out;
}
