/**
 * The end of a turn as one statement (docs/decisions/runtime.md, "History records every turn"): the run's
 * outcome, its remaining events, the assistant's history entry and the compaction of its checkpoints.
 */
import type { DataSource } from 'typeorm';
import type { TurnResult } from '../runtime/runtime.types';
import type { Project } from '../projects/project.entity';
import type { MessageState, StageChange } from './message.entity';
import type { HeldStep, HubEvent } from './live-run';

export const MESSAGE_STATE: Record<TurnResult['state'], MessageState> = {
  done: 'done',
  cancelled: 'stopped',
  error: 'failed',
  interrupted: 'interrupted',
  awaiting_approval: 'awaiting_approval',
};
function withoutReply(data: unknown): unknown {
  if (!data || typeof data !== 'object') return data;
  const { reply: _reply, ...rest } = data as Record<string, unknown>;
  return rest;
}

/**
 * One statement (one commit) at the end of a turn: the run's outcome, the events not yet stored
 * (`close` last), on a project the assistant's history entry, and the checkpoints: deleted when the run
 * ended for good, kept — with the steps still held in memory (`steps`, run-hub.ts) — when it can still be
 * resumed (interrupted, awaiting approval). The reply is kept once, by the
 * history entry (besides the stream's content events): not on the run row (`runs.reply` is only filled
 * for a run without a history entry, the demo) nor in the stored `done` (docs/decisions/runtime.md).
 *
 * The write applies once: it only touches a run still `running`, so a background retry after a
 * write that did land (its answer lost with the connection) adds no second ending to the events.
 */
export async function recordTurn(
  ds: DataSource,
  runId: string,
  project: Project | null,
  r: TurnResult,
  events: HubEvent[],
  steps: HeldStep[],
  sc: StageChange | null,
  /** cluster mode: the worker carrying the run — a worker that lost it to another stores nothing */
  workerId: string | null = null,
) {
  // every turn on a project ends in history: a reply, or how it stopped or failed (with its partial reply);
  // an Advance's user entry (stored even without a message) records the stage move
  const keep = !!project && (r.reply.trim() !== '' || r.tool_calls.length > 0 || r.state !== 'done');
  const lastSeq = events.length ? events[events.length - 1].seq : 0;
  await ds.query(
    `WITH u AS (UPDATE runs SET state = $2, reply = CASE WHEN $11 THEN '' ELSE $3 END, usage = $4, error = $5, stage = $6, node_key = $7, finished_at = now(), last_seq = $12, pending_approval = $17 WHERE id = $1 AND state = 'running' AND worker_id IS NOT DISTINCT FROM $18 RETURNING id),
          sc AS (UPDATE messages SET stage_change = $16 FROM u WHERE $16::jsonb IS NOT NULL AND messages.run_id = u.id AND messages.role = 'user'),
          ev AS (INSERT INTO run_events (run_id, seq, event, data) SELECT $1, x.seq, x.event, x.data FROM u, jsonb_to_recordset($13::jsonb) AS x(seq integer, event varchar, data jsonb) ON CONFLICT DO NOTHING),
          -- checkpoints are compacted when the run ends, unless it can still be resumed (docs/decisions/runtime.md)
          cp AS (DELETE FROM run_checkpoints c USING u WHERE c.run_id = u.id AND $2 NOT IN ('interrupted', 'awaiting_approval')),
          ck AS (INSERT INTO run_checkpoints (run_id, step, event_seq, data) SELECT $1, x.step, x.event_seq, x.data FROM u, jsonb_to_recordset($19::jsonb) AS x(step integer, event_seq integer, data jsonb) WHERE $2 IN ('interrupted', 'awaiting_approval') ON CONFLICT DO NOTHING)
     INSERT INTO messages (project_id, run_id, role, content, stage, node_key, agent_id, tool_calls, state, error, pending_approval)
     SELECT $8, u.id, 'assistant', $3, $6, $14, $9, $10, $15, $5, $17 FROM u WHERE $11
       AND NOT EXISTS (SELECT 1 FROM messages WHERE run_id = $1 AND role = 'assistant')`,
    [
      runId,
      r.state,
      r.reply,
      JSON.stringify(r.usage),
      r.error ? JSON.stringify(r.error) : null,
      r.stage,
      r.node_key,
      project?.id ?? null,
      r.agent?.id ?? null,
      JSON.stringify(r.tool_calls),
      keep,
      lastSeq,
      // the reply is stored once, in history (or on the run row for a demo): the stored `done` leaves
      // it out and a replay from the database puts it back (run-hub.ts, subscribe)
      JSON.stringify(events.map((e) => (e.event === 'done' ? { ...e, data: withoutReply(e.data) } : e))),
      r.reply_node_key ?? r.node_key,
      MESSAGE_STATE[r.state],
      sc ? JSON.stringify(sc) : null,
      r.approval ? JSON.stringify(r.approval) : null,
      workerId,
      JSON.stringify(steps),
    ],
  );
}
