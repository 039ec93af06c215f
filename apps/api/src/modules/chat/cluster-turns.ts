/**
 * The chat module's side of cluster mode (docs/decisions/cluster.md): what an API replica does for a
 * turn that a worker carries — wait for its end and read its result (the synchronous API), cancel it
 * wherever it is (queued: ended here; claimed: flagged and the worker told).
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { DomainError } from '../../platform/errors/domain-error';
import { ClusterBus } from '../cluster/cluster-bus';
import { TurnQueue } from '../cluster/turn-queue';
import { RuntimeService } from '../runtime/runtime.service';
import type { TurnResult } from '../runtime/runtime.types';
import { endStoredRun } from './run-ending';
import { RunFanout } from './run-fanout';
import { RunHub } from './run-hub';
import type { Run } from './run.entity';

export const RUN_CANCEL_CHANNEL = 'run_cancel';

export const CANCELLED = {
  state: 'cancelled' as const,
  error: { code: 'cancelled', message: 'The run was cancelled.' },
  note: { state: 'stopped' as const, content: 'This run was cancelled before a worker started it.' },
};

@Injectable()
export class ClusterTurns {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly hub: RunHub,
    private readonly queue: TurnQueue,
    private readonly bus: ClusterBus,
    private readonly fanout: RunFanout,
    private readonly runtime: RuntimeService,
  ) {}

  /**
   * In the admitting transaction `m`: the run's first event, `status {state: "queued"}` (so its stream
   * names the run at once, and a cancel can be aimed at it), and its job unless `enqueue` is false (a
   * rerun queues it once its workspace is restored).
   */
  async queued(m: EntityManager, runId: string, enqueue: boolean): Promise<void> {
    const d = this.runtime.describeDefault();
    const status = {
      seq: 1,
      event: 'status',
      data: { run_id: runId, state: 'queued', provider: d.provider, model: d.model },
    };
    await m.query(`INSERT INTO run_events (run_id, seq, event, data) VALUES ($1, 1, 'status', $2)`, [
      runId,
      JSON.stringify(status.data),
    ]);
    await this.fanout.announce(m, runId, 0, [status]);
    if (enqueue) await this.queue.enqueue(m, runId);
  }

  /** The result of a turn a worker carries, once it has ended (its stream's `close`), read from the database. */
  async awaitResult(runId: string): Promise<TurnResult> {
    await new Promise<void>((resolve, reject) => {
      this.hub.subscribe(runId, 0, () => undefined, resolve).catch(reject);
    });
    return readTurnResult(this.ds, runId);
  }

  /**
   * Cancels a run of the cluster: still queued, it is taken out of the queue and ended now; claimed by
   * a worker, it is flagged (a worker taking it over after a death ends it instead of resuming it) and
   * the worker is told at COMMIT, which stops it like a local cancel.
   */
  async cancel(run: Run): Promise<void> {
    const done = await this.ds.transaction(async (m) => {
      const [row]: Array<{ state: string; worker_id: string | null }> = await m.query(
        'SELECT state, worker_id FROM runs WHERE id = $1 FOR UPDATE',
        [run.id],
      );
      if (row?.state !== 'running') return false;
      if (row.worker_id === null) {
        await this.queue.remove(m, run.id);
        return endStoredRun(m, run, CANCELLED, this.fanout);
      }
      await m.query('UPDATE runs SET cancel_requested = true WHERE id = $1', [run.id]);
      await this.bus.notify(RUN_CANCEL_CHANNEL, run.id, m);
      return true;
    });
    if (!done) throw new DomainError('run.not_running', `Run ${run.id} is not running.`);
  }
}

/**
 * A finished turn's result as the synchronous API reports it, from what the worker stored: the run row,
 * the assistant's history entry, the agent that answered and the files it changed (its events).
 */
export async function readTurnResult(ds: DataSource, runId: string): Promise<TurnResult> {
  const [row]: Array<{
    state: TurnResult['state'];
    stage: string | null;
    node_key: string | null;
    usage: TurnResult['usage'];
    error: TurnResult['error'];
    pending_approval: TurnResult['approval'];
    reply: string;
    tool_calls: TurnResult['tool_calls'] | null;
    agent: { agent_id: number; name: string; role: string } | null;
    files: TurnResult['files_changed'];
    awaiting_gate: TurnResult['awaiting_gate'];
  }> = await ds.query(
    `SELECT r.state, r.stage, r.node_key, r.usage, r.error, r.pending_approval,
            coalesce(m.content, r.reply) AS reply, m.tool_calls, p.awaiting_gate,
            (SELECT data FROM run_events WHERE run_id = r.id AND event = 'agent' ORDER BY seq DESC LIMIT 1) AS agent,
            (SELECT coalesce(jsonb_agg(f ORDER BY e.seq), '[]') FROM run_events e, jsonb_array_elements(e.data->'files') f
              WHERE e.run_id = r.id AND e.event = 'files_changed') AS files
       FROM runs r
       LEFT JOIN messages m ON m.run_id = r.id AND m.role = 'assistant'
       LEFT JOIN projects p ON p.id = r.project_id
      WHERE r.id = $1`,
    [runId],
  );
  if (!row) throw new DomainError('not_found', `Run ${runId} not found`);
  return {
    state: row.state,
    reply: row.reply ?? '',
    stage: row.stage ?? '',
    awaiting_gate: row.awaiting_gate ?? null,
    node_key: row.node_key,
    agent: row.agent ? { id: row.agent.agent_id, name: row.agent.name, role: row.agent.role } : null,
    tool_calls: row.tool_calls ?? [],
    files_changed: row.files,
    usage: row.usage,
    error: row.error,
    approval: row.pending_approval ?? null,
  };
}
