// The chat: stored history (oldest first, "load earlier"), the live streamed turn, and the composer.
import { useLayoutEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { HistoryMessage } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { EmptyState, ErrorState, Spinner } from '../../../shared/components/states';
import { Icon } from '../../../shared/components/icon';
import { Markdown } from '../../../shared/components/markdown';
import { formatTime } from '../../../shared/format';
import { turnSummary, type Turn } from '../turn-transcript';
import { runApi } from '../api/run-api';
import { useHistory } from '../hooks/use-run-data';
import { ToolCard } from '../../../shared/components/tool-card';

const MAX_MESSAGE = 32 * 1024;

/** A stage move the user asked for (Advance, a gate approval): a line of its own in the history. */
function StageChangeEntry({ m }: { m: HistoryMessage }) {
  const change = m.stage_change;
  if (!change) return null;
  return (
    <div className="history-event" data-testid="stage-change-entry" role="note">
      <Icon name="gate" size={14} />
      <span>
        {change.gate ? (
          <>
            Approved the gate <code>{change.gate}</code>: moved from{' '}
          </>
        ) : (
          'Advanced from '
        )}
        <strong>{change.from}</strong> to <strong>{change.to}</strong>
      </span>
      <span className="msg-meta">{formatTime(m.created_at)}</span>
    </div>
  );
}

const ENDED: Partial<Record<string, { label: string; kind: 'warning' | 'error' }>> = {
  stopped: { label: 'stopped', kind: 'warning' },
  failed: { label: 'failed', kind: 'error' },
  interrupted: { label: 'interrupted', kind: 'warning' },
  awaiting_approval: { label: 'awaiting approval', kind: 'warning' },
};

/** Rerun a finished run from the node this reply came from: a new run, the files kept or put back. */
export type RerunHandler = (runId: string, nodeKey: string, restoreWorkspace: boolean) => void;

const RERUNNABLE = new Set(['done', 'failed', 'stopped']);

function RerunMenu({ m, onRerun }: { m: HistoryMessage; onRerun: RerunHandler }) {
  // the nodes the run entered, read when the menu opens (a rerun can start at any of them)
  const [nodes, setNodes] = useState<string[] | null>(null);
  if (!m.run_id || !RERUNNABLE.has(m.state)) return null;
  const runId = m.run_id;
  const load = () => {
    if (nodes) return;
    runApi.run(runId).then(
      (r) => setNodes(r.visited_nodes),
      () => setNodes(m.node_key ? [m.node_key] : []),
    );
  };
  return (
    <details className="rerun-menu" data-testid="rerun-menu" onToggle={load}>
      <summary>Rerun…</summary>
      {nodes === null ? (
        <Spinner />
      ) : (
        nodes.map((nodeKey) => (
          <span key={nodeKey} className="rerun-choice">
            <button type="button" className="btn btn-small" onClick={() => onRerun(runId, nodeKey, false)}>
              Rerun from {nodeKey}
            </button>
            <button type="button" className="btn btn-small" onClick={() => onRerun(runId, nodeKey, true)}>
              Rerun from {nodeKey}, files as they were there
            </button>
          </span>
        ))
      )}
    </details>
  );
}

function HistoryItem({ m, onRerun }: { m: HistoryMessage; onRerun?: RerunHandler }) {
  const tools = Array.isArray(m.tool_calls) ? m.tool_calls : [];
  if (m.role === 'user') {
    if (m.stage_change && !m.content) return <StageChangeEntry m={m} />;
    return (
      <>
        <div className="msg msg-user" data-testid="chat-message" data-role="user">
          <div className="msg-bubble">{m.content || <em>(advanced the stage)</em>}</div>
          <div className="msg-meta">
            {m.stage && <span className="chip chip-small">{m.stage}</span>} {formatTime(m.created_at)}
          </div>
        </div>
        <StageChangeEntry m={m} />
      </>
    );
  }
  const ended = ENDED[m.state];
  return (
    <div
      className={`msg msg-assistant${ended ? ` msg-${m.state}` : ''}`}
      data-testid="chat-message"
      data-role={m.role}
      data-state={m.state}
    >
      {tools.length > 0 && (
        <div className="tool-list">
          {tools.map((t, i) => (
            <ToolCard key={i} name={t.name} args={t.arguments} result={{ ok: t.ok }} />
          ))}
        </div>
      )}
      {m.content && (
        <div className="msg-bubble">
          <Markdown text={m.content} />
        </div>
      )}
      {m.state !== 'done' && m.error && m.state !== 'stopped' && (
        <p className="msg-error" data-testid="history-error">
          {m.error.message}
        </p>
      )}
      <div className="msg-meta">
        {m.node_key && <code>{m.node_key}</code>} {m.stage && <span className="chip chip-small">{m.stage}</span>}{' '}
        {formatTime(m.created_at)}
        {ended && <span className={`badge badge-${ended.kind}`}>{ended.label}</span>}
        {onRerun && <RerunMenu m={m} onRerun={onRerun} />}
      </div>
    </div>
  );
}

function LiveTurn({
  turn,
  streaming,
  reconnecting,
  onDismiss,
}: {
  turn: Turn;
  streaming: boolean;
  reconnecting: boolean;
  onDismiss: () => void;
}) {
  const lastText = [...turn.items].reverse().find((i) => i.kind === 'text');
  return (
    <div className="live-turn" data-testid="live-turn" data-status={turn.status} aria-busy={turn.status === 'running'}>
      {turn.message ? (
        <div className="msg msg-user" data-testid="chat-message" data-role="user">
          <div className="msg-bubble">{turn.message}</div>
        </div>
      ) : (
        turn.advance && <div className="activity activity-stage">Advancing the stage…</div>
      )}
      <div className="msg msg-assistant" data-role="assistant">
        {turn.items.map((it) => {
          switch (it.kind) {
            case 'text':
              return (
                <div key={it.key} className="msg-bubble" data-testid="assistant-text">
                  <Markdown text={it.text} />
                  {streaming && it === lastText && turn.status === 'running' && (
                    <span className="caret" aria-hidden="true" />
                  )}
                </div>
              );
            case 'tool':
              return (
                <ToolCard
                  key={it.key}
                  name={it.name}
                  args={it.arguments}
                  result={it.result}
                  pending={turn.status === 'running'}
                />
              );
            case 'activity':
              return (
                <div
                  key={it.key}
                  className={`activity activity-${it.tone}`}
                  data-testid={it.tone === 'agent' ? 'agent-activity' : 'activity'}
                >
                  {it.text}
                </div>
              );
            case 'gate':
              return (
                <div key={it.key} className="activity activity-gate" data-testid="gate-activity">
                  <Icon name="gate" size={14} /> Waiting for approval before <strong>{it.gate.next_stage}</strong>
                </div>
              );
            case 'error':
              return (
                <Alert
                  key={it.key}
                  kind="error"
                  testId="chat-error"
                  title={it.code === 'connection' ? 'Connection lost' : `Error: ${it.code}`}
                >
                  {it.message}
                </Alert>
              );
          }
        })}
        {turn.status === 'running' && (
          <div className="activity activity-status" role="status">
            <Spinner label="Working" /> {reconnecting ? 'Reconnecting…' : 'Working…'}
          </div>
        )}
        {turn.status !== 'running' && (
          <div className="msg-meta">
            {turn.usage && (
              <span>
                {turn.usage.input_tokens} in · {turn.usage.output_tokens} out tokens
              </span>
            )}
            {turn.provider && <span> · {turn.provider}</span>}
            {(turn.status === 'error' || turn.status === 'stopped') && (
              <button type="button" className="btn-link" onClick={onDismiss}>
                Dismiss
              </button>
            )}
          </div>
        )}
      </div>
    </div>
  );
}

/**
 * The live turn minus what history already shows of its run, so nothing shows twice: the prompt once
 * history holds it (after Stop, or a refetch mid-turn), the whole turn but its summary (errors, stage
 * moves, usage) once history holds its reply or how it ended.
 */
function withoutStored(turn: Turn | null, messages: HistoryMessage[]): Turn | null {
  if (!turn?.runId) return turn;
  const stored = messages.filter((m) => m.run_id === turn.runId);
  if (stored.some((m) => m.role === 'assistant')) return turn.status === 'running' ? turn : turnSummary(turn);
  if (!stored.some((m) => m.role === 'user')) return turn;
  // the stage move of an Advance is history's own entry now
  const moved = stored.some((m) => m.stage_change);
  const items = moved ? turn.items.filter((i) => !(i.kind === 'activity' && i.tone === 'stage')) : turn.items;
  const rest = { ...turn, message: '', advance: false, items };
  return rest.status !== 'running' && items.length === 0 && !rest.usage ? null : rest;
}

export function ChatPanel({
  projectSlug,
  turn,
  streaming,
  reconnecting,
  onSend,
  onStop,
  onDismiss,
  onRerun,
  disabledReason,
}: {
  projectSlug: string;
  turn: Turn | null;
  streaming: boolean;
  reconnecting: boolean;
  onSend: (message: string) => void;
  onStop: () => void;
  onDismiss: () => void;
  /** absent while a turn runs: a rerun is a turn of this project */
  onRerun?: RerunHandler;
  disabledReason: string | null;
}) {
  const history = useHistory(projectSlug);
  const [text, setText] = useState('');
  const scrollRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  const messages = useMemo(() => {
    const pages = history.data?.pages ?? [];
    return [...pages].reverse().flatMap((p) => p.messages);
  }, [history.data]);
  const shownTurn = useMemo(() => withoutStored(turn, messages), [turn, messages]);

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [messages, turn]);

  const tooLong = new Blob([text]).size > MAX_MESSAGE;
  const canSend = !streaming && !disabledReason && text.trim().length > 0 && !tooLong;

  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (!canSend) return;
    stick.current = true;
    onSend(text.trim());
    setText('');
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <section className="chat" aria-label="Chat" data-testid="chat-panel">
      <div
        className="chat-scroll"
        ref={scrollRef}
        onScroll={(e) => {
          const el = e.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
        }}
        role="log"
        aria-live="polite"
        aria-relevant="additions"
        data-testid="chat-log"
      >
        {history.hasNextPage && (
          <button
            type="button"
            className="btn btn-small load-earlier"
            onClick={() => void history.fetchNextPage()}
            disabled={history.isFetchingNextPage}
          >
            {history.isFetchingNextPage ? 'Loading…' : 'Load earlier messages'}
          </button>
        )}
        {history.isPending ? (
          <div className="state state-loading">
            <Spinner /> Loading history…
          </div>
        ) : history.isError ? (
          <ErrorState error={history.error} onRetry={() => void history.refetch()} title="Could not load the history" />
        ) : messages.length === 0 && !shownTurn ? (
          <EmptyState title="No messages yet">
            Ask the stage's agent to do something, e.g. “Draft the product brief”.
          </EmptyState>
        ) : (
          messages.map((m) => <HistoryItem key={m.id} m={m} onRerun={streaming ? undefined : onRerun} />)
        )}
        {shownTurn && (
          <LiveTurn turn={shownTurn} streaming={streaming} reconnecting={reconnecting} onDismiss={onDismiss} />
        )}
      </div>
      <form className="composer" onSubmit={submit}>
        <textarea
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
          placeholder={disabledReason ?? 'Message the agent… (Enter to send, Shift+Enter for a new line)'}
          aria-label="Message"
          rows={2}
          disabled={!!disabledReason}
          data-testid="chat-input"
        />
        {streaming ? (
          <button type="button" className="btn btn-danger" onClick={onStop} data-testid="chat-stop">
            Stop
          </button>
        ) : (
          <button type="submit" className="btn btn-primary" disabled={!canSend} data-testid="chat-send">
            Send
          </button>
        )}
      </form>
      {tooLong && <p className="field-error composer-error">The message is longer than 32 KiB.</p>}
    </section>
  );
}
