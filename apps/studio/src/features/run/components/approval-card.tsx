// The tool call a run waits on (docs/API.md, "Per-tool approval"): its tool and arguments, and the three
// decisions — approve, reject with a reason (the model reads it), or run it with edited arguments (JSON).
// Once decided, the page follows the run's stream from the waiting turn's last event.
import { useState } from 'react';
import type { AwaitingApproval, ApprovalDecision } from '../../../shared/api-types';
import { errorMessage } from '../../../shared/http';
import { runApi } from '../api/run-api';

type Mode = 'choose' | 'reject' | 'edit';

export function ApprovalCard({
  pending,
  onDecided,
}: {
  pending: AwaitingApproval;
  onDecided: (runId: string, afterSeq: number) => void;
}) {
  const [mode, setMode] = useState<Mode>('choose');
  const [reason, setReason] = useState('');
  const [args, setArgs] = useState(() => JSON.stringify(pending.arguments ?? {}, null, 2));
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  const decide = async (decision: ApprovalDecision) => {
    setSending(true);
    setError(null);
    try {
      // the waiting turn's last event: the stream is followed from there
      const run = await runApi.run(pending.run_id);
      await runApi.decide(pending.run_id, pending.call_id, decision);
      onDecided(pending.run_id, run.last_seq);
    } catch (e) {
      setError(errorMessage(e));
      setSending(false);
    }
  };

  const submitEdit = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(args);
    } catch {
      setError('The arguments must be valid JSON.');
      return;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setError('The arguments must be a JSON object.');
      return;
    }
    void decide({ decision: 'edit', arguments: parsed as Record<string, unknown> });
  };

  return (
    <section className="approval-card" data-testid="approval-card" aria-label="Tool call awaiting approval">
      <header>
        <strong>Approval needed</strong> — the agent wants to call{' '}
        <code data-testid="approval-tool">{pending.name}</code>
      </header>
      <pre className="approval-args" data-testid="approval-arguments">
        {JSON.stringify(pending.arguments ?? {}, null, 2)}
      </pre>
      {mode === 'reject' && (
        <label className="approval-field">
          Reason (the agent reads it)
          <textarea
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            maxLength={4096}
            rows={2}
            data-testid="approval-reason"
          />
        </label>
      )}
      {mode === 'edit' && (
        <label className="approval-field">
          Arguments (JSON)
          <textarea
            value={args}
            onChange={(e) => setArgs(e.target.value)}
            rows={6}
            spellCheck={false}
            data-testid="approval-edit-arguments"
          />
        </label>
      )}
      {error && (
        <p className="field-error" role="alert" data-testid="approval-error">
          {error}
        </p>
      )}
      <div className="approval-actions">
        {mode === 'choose' && (
          <>
            <button
              type="button"
              className="btn btn-primary btn-small"
              disabled={sending}
              onClick={() => void decide({ decision: 'approve' })}
              data-testid="approval-approve"
            >
              Approve
            </button>
            <button
              type="button"
              className="btn btn-small"
              disabled={sending}
              onClick={() => setMode('reject')}
              data-testid="approval-reject"
            >
              Reject…
            </button>
            <button
              type="button"
              className="btn btn-small"
              disabled={sending}
              onClick={() => setMode('edit')}
              data-testid="approval-edit"
            >
              Edit arguments…
            </button>
          </>
        )}
        {mode === 'reject' && (
          <button
            type="button"
            className="btn btn-danger btn-small"
            disabled={sending || !reason.trim()}
            onClick={() => void decide({ decision: 'reject', reason: reason.trim() })}
            data-testid="approval-reject-confirm"
          >
            Reject the call
          </button>
        )}
        {mode === 'edit' && (
          <button
            type="button"
            className="btn btn-primary btn-small"
            disabled={sending}
            onClick={submitEdit}
            data-testid="approval-edit-confirm"
          >
            Run with these arguments
          </button>
        )}
        {mode !== 'choose' && (
          <button
            type="button"
            className="btn-link small"
            disabled={sending}
            onClick={() => {
              setMode('choose');
              setError(null);
            }}
          >
            Back
          </button>
        )}
      </div>
    </section>
  );
}
