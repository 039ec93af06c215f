/**
 * Per-tool approval (docs/decisions/runtime.md, "Per-tool approval"): `POST /agent/runs/{id}/approvals/{call_id}`.
 * The decision is one more checkpoint of the run (a `decision` step, runtime/step-log.ts), stored with the
 * run back to `running` in one transaction; the run then resumes under the same id like any resume (its
 * recorded steps replayed, the decided call run live), read on `GET /agent/runs/{id}/stream`. All of it is
 * in the database, so a pending approval outlives restarts.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError, invalid } from '../../platform/errors/domain-error';
import type { AuthUser } from '../auth/user.entity';
import type { StepOf } from '../runtime/step-log';
import { ChatService } from './chat.service';
import { MAX_EDITED_ARGUMENTS, type ApprovalDecisionDto } from './dto/approval.dto';
import { RunRecovery } from './run-recovery.service';
import { Run } from './run.entity';

@Injectable()
export class RunApprovals {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly chat: ChatService,
    private readonly recovery: RunRecovery,
  ) {}

  async decide(user: AuthUser, runId: string, callId: string, dto: ApprovalDecisionDto): Promise<{ run_id: string }> {
    const run = await this.chat.findRunFor(user, runId);
    if (run.owner_id !== user.id) throw new DomainError('not_found', `Run ${runId} not found`);
    const step = decisionStep(callId, dto);
    if (run.state !== 'awaiting_approval' || !run.pending_approval)
      throw new DomainError(
        'run.not_awaiting_approval',
        `Run ${runId} is not awaiting approval (state: ${run.state}).`,
      );
    if (run.pending_approval.call_id !== callId) throw notPending(runId, callId, run.pending_approval.call_id);
    await this.ds.transaction(async (m) => {
      // only the pending call of a run still awaiting: a concurrent decision finds nothing to update
      const [, n]: [unknown, number] = await m.query(
        `UPDATE runs SET state = 'running', pending_approval = NULL, error = NULL, finished_at = NULL
          WHERE id = $1 AND state = 'awaiting_approval' AND pending_approval->>'call_id' = $2`,
        [runId, callId],
      );
      if (!n) throw new DomainError('run.not_awaiting_approval', `Run ${runId} is no longer awaiting approval.`);
      // its history entry (the pending call) gives way to the one the resumed turn writes
      await m.query(`DELETE FROM messages WHERE run_id = $1 AND role = 'assistant'`, [runId]);
      // the decision covers every stored event (event_seq = the run's last): a resume drops none of them
      await m.query(
        `INSERT INTO run_checkpoints (run_id, step, event_seq, data)
         SELECT $1, coalesce((SELECT max(step) FROM run_checkpoints WHERE run_id = $1), 0) + 1, r.last_seq, $2::jsonb
           FROM runs r WHERE r.id = $1`,
        [runId, JSON.stringify(step)],
      );
    });
    const reopened = await this.ds.getRepository(Run).findOneByOrFail({ id: runId });
    if (!(await this.recovery.resumeRun(reopened))) {
      const ended = await this.ds.getRepository(Run).findOneByOrFail({ id: runId });
      throw new DomainError('run.not_resumable', `Run ${runId} could not be resumed: ${ended.error?.message ?? ''}`);
    }
    return { run_id: runId };
  }
}

/** The decision as a step; 400 naming the field when the body does not fit its decision. */
function decisionStep(callId: string, dto: ApprovalDecisionDto): StepOf<'decision'> {
  const { decision, reason, arguments: args } = dto;
  if (decision !== 'reject' && reason !== undefined)
    throw invalid([{ field: 'reason', message: 'only a reject decision takes a reason' }]);
  if (decision !== 'edit' && args !== undefined)
    throw invalid([{ field: 'arguments', message: 'only an edit decision takes arguments' }]);
  if (decision === 'reject') {
    if (!reason?.trim())
      throw invalid([{ field: 'reason', message: 'a reject decision needs a reason (the model reads it)' }]);
    return { step: 'decision', call_id: callId, decision, reason };
  }
  if (decision === 'edit') {
    if (!args || Array.isArray(args))
      throw invalid([{ field: 'arguments', message: 'an edit decision needs the arguments, a JSON object' }]);
    if (JSON.stringify(args).length > MAX_EDITED_ARGUMENTS)
      throw invalid([{ field: 'arguments', message: `must be at most ${MAX_EDITED_ARGUMENTS} characters of JSON` }]);
    return { step: 'decision', call_id: callId, decision, arguments: args };
  }
  return { step: 'decision', call_id: callId, decision };
}

const notPending = (runId: string, callId: string, pending: string) =>
  new DomainError(
    'run.not_awaiting_approval',
    `The call ${callId.slice(0, 128)} is not the one run ${runId} is waiting on (${pending}).`,
    undefined,
    undefined,
    { pending_call_id: pending },
  );
