/**
 * Ends a run that is not live in this process (docs/decisions/runtime.md, "Durable runs"): one
 * transaction appends `error`, `done` and `close` after its stored events, stores its outcome and a
 * history note, and (cluster mode) tells the other processes' streams. Used when a restart finds it in
 * flight, when it cannot be resumed, and in cluster mode when it is cancelled while queued.
 */
import type { EntityManager } from 'typeorm';
import { RESUME_SEQ_GAP } from './resume-gap';
import { Message, type MessageState } from './message.entity';
import { RunEvent } from './run-event.entity';
import type { RunFanout } from './run-fanout';
import { Run, type RunState } from './run.entity';

export interface RunEnding {
  state: Extract<RunState, 'interrupted' | 'error' | 'cancelled'>;
  error: { code: string; message: string };
  /** the history note */
  note: { state: MessageState; content: string };
  /**
   * the run was live somewhere that may have streamed events it did not store (a crashed worker): the
   * ending is numbered above the gap a resume leaves (run-recovery.service.ts), so no client misses it
   */
  afterGap?: boolean;
}

/** Ends the run if it is still `running`; false when something else ended it first. */
export async function endStoredRun(m: EntityManager, run: Run, end: RunEnding, fanout?: RunFanout): Promise<boolean> {
  const [, updated]: [unknown, number] = await m.query(
    `UPDATE runs SET state = $2, finished_at = now(), error = $3 WHERE id = $1 AND state = 'running'`,
    [run.id, end.state, JSON.stringify(end.error)],
  );
  if (!updated) return false;
  const last: Array<{ max: number | null }> = await m.query(
    'SELECT max(seq) AS max FROM run_events WHERE run_id = $1',
    [run.id],
  );
  const stored = Number(last[0]?.max ?? 0);
  let seq = stored + (end.afterGap ? RESUME_SEQ_GAP : 0);
  const events = [
    { event: 'error', data: end.error },
    { event: 'done', data: { run_id: run.id, reply: run.reply, usage: run.usage, state: end.state } },
    { event: 'close', data: {} },
  ].map((e) => ({ seq: ++seq, event: e.event, data: e.data }));
  await m.getRepository(RunEvent).insert(events.map((e) => ({ run_id: run.id, ...e })));
  await m.query('UPDATE runs SET last_seq = $2 WHERE id = $1', [run.id, seq]);
  // an interrupted run keeps its checkpoints: it can still be resumed
  if (end.state !== 'interrupted') await m.query('DELETE FROM run_checkpoints WHERE run_id = $1', [run.id]);
  if (run.project_id) {
    await m.getRepository(Message).insert({
      project_id: run.project_id,
      run_id: run.id,
      role: 'assistant',
      content: end.note.content,
      stage: run.stage,
      node_key: run.node_key,
      tool_calls: [],
      state: end.note.state,
      error: end.error,
    });
  }
  if (fanout?.enabled) await fanout.announce(m, run.id, stored, events);
  return true;
}
