// The chat: stored history (oldest first, "load earlier"), the live streamed turn, and the composer.
import { useLayoutEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { HistoryMessage } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { EmptyState, ErrorState, Spinner } from '../../../shared/components/states';
import { Icon } from '../../../shared/components/icon';
import { Markdown } from '../../../shared/components/markdown';
import { formatTime } from '../../../shared/format';
import type { Turn } from '../turn-transcript';
import { useHistory } from '../hooks/use-run-data';
import { ToolCard } from '../../../shared/components/tool-card';

const MAX_MESSAGE = 32 * 1024;

function HistoryItem({ m }: { m: HistoryMessage }) {
  const tools = Array.isArray(m.tool_calls) ? m.tool_calls : [];
  if (m.role === 'user') {
    return (
      <div className="msg msg-user" data-testid="chat-message" data-role="user">
        <div className="msg-bubble">{m.content || <em className="muted">(advanced the stage)</em>}</div>
        <div className="msg-meta">
          {m.stage && <span className="chip chip-small">{m.stage}</span>} {formatTime(m.created_at)}
        </div>
      </div>
    );
  }
  return (
    <div
      className={`msg msg-assistant${m.state === 'interrupted' ? ' msg-interrupted' : ''}`}
      data-testid="chat-message"
      data-role={m.role}
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
      <div className="msg-meta">
        {m.node_key && <code>{m.node_key}</code>} {m.stage && <span className="chip chip-small">{m.stage}</span>}{' '}
        {formatTime(m.created_at)}
        {m.state === 'interrupted' && <span className="badge badge-warning">interrupted</span>}
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

export function ChatPanel({
  projectSlug,
  turn,
  streaming,
  reconnecting,
  onSend,
  onStop,
  onDismiss,
  disabledReason,
}: {
  projectSlug: string;
  turn: Turn | null;
  streaming: boolean;
  reconnecting: boolean;
  onSend: (message: string) => void;
  onStop: () => void;
  onDismiss: () => void;
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
        ) : messages.length === 0 && !turn ? (
          <EmptyState title="No messages yet">
            Ask the stage's agent to do something, e.g. “Draft the product brief”.
          </EmptyState>
        ) : (
          messages.map((m) => <HistoryItem key={m.id} m={m} />)
        )}
        {turn && <LiveTurn turn={turn} streaming={streaming} reconnecting={reconnecting} onDismiss={onDismiss} />}
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
