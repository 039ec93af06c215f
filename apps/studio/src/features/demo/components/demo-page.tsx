// /demo — the public demo chat: no login, the system pack's agents, a read-only sample workspace.
import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link } from 'react-router-dom';
import type { DemoResponse } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { Spinner } from '../../../shared/components/states';
import { Markdown } from '../../../shared/components/markdown';
import { ToolCard } from '../../../shared/components/tool-card';
import { errorMessage, isApiError } from '../../../shared/http';
import { PRODUCT_NAME, useDocumentTitle } from '../../../shared/use-document-title';
import { useDemoChat, useDemoPacks } from '../hooks/use-demo';

interface Exchange {
  id: number;
  message: string;
  domain: string;
  stage: string;
  response: DemoResponse | null;
  error: string | null;
}

const FALLBACK_STAGES = ['discover', 'design', 'develop', 'test', 'deploy', 'iterate'];

export function DemoPage() {
  useDocumentTitle('Public demo');
  const packs = useDemoPacks();
  const chat = useDemoChat();
  const [domain, setDomain] = useState('pdlc');
  const [pickedStage, setStage] = useState('discover');
  const [text, setText] = useState('');
  const [log, setLog] = useState<Exchange[]>([]);
  const counter = useRef(0);
  const endRef = useRef<HTMLDivElement>(null);

  const domains = useMemo(() => {
    const list = [...new Set((packs.data ?? []).map((p) => p.domain))];
    return list.length ? list : ['pdlc'];
  }, [packs.data]);
  const pack =
    packs.data?.find((p) => p.domain === domain && p.slug === domain) ?? packs.data?.find((p) => p.domain === domain);
  const stages = pack?.stages?.length ? pack.stages : FALLBACK_STAGES;
  // derived, not synced in an effect: a domain without the picked stage starts at its first one
  const stage = stages.includes(pickedStage) ? pickedStage : (stages[0] ?? '');

  useEffect(() => {
    endRef.current?.scrollIntoView({ block: 'end' });
  }, [log]);

  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    const message = text.trim();
    if (!message || chat.isPending) return;
    const id = ++counter.current;
    setLog((l) => [...l, { id, message, domain, stage, response: null, error: null }]);
    setText('');
    chat.mutate(
      { message, domain, stage },
      {
        onSuccess: (response) => {
          setLog((l) => l.map((x) => (x.id === id ? { ...x, response } : x)));
          if (response.stage && stages.includes(response.stage)) setStage(response.stage);
        },
        onError: (err) => {
          const msg =
            isApiError(err) && err.status === 429
              ? 'The demo is busy or you sent too many messages. Wait a moment and try again.'
              : errorMessage(err);
          setLog((l) => l.map((x) => (x.id === id ? { ...x, error: msg } : x)));
        },
      },
    );
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <div className="demo-screen" data-testid="demo-page">
      <header className="demo-header">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          <span>{PRODUCT_NAME}</span>
        </div>
        <nav className="demo-nav" aria-label="Demo">
          <Link to="/studio" className="btn btn-small">
            Open the studio
          </Link>
        </nav>
      </header>
      <main className="demo-main">
        <div className="demo-intro">
          <h1>Try the agents</h1>
          <p className="muted">
            Chat with the built-in product-development agents. No login needed. The agents work on a{' '}
            <strong>read-only sample workspace</strong>: they can list and read its files, but nothing you send is
            stored.
          </p>
        </div>
        <div className="demo-controls">
          <label className="inline-field">
            <span>Domain</span>
            <select
              value={domain}
              onChange={(e) => setDomain(e.target.value)}
              data-testid="demo-domain"
              disabled={packs.isPending}
            >
              {domains.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
          </label>
          <label className="inline-field">
            <span>Stage</span>
            <select value={stage} onChange={(e) => setStage(e.target.value)} data-testid="demo-stage">
              {stages.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          {packs.isError && (
            <span className="muted small">Could not load the stages; using the default PDLC stages.</span>
          )}
        </div>

        <section className="demo-log" aria-label="Conversation" aria-live="polite" data-testid="demo-log">
          {log.length === 0 && (
            <div className="state state-empty">
              <strong>Ask something</strong>
              <p>For example: “What is in the workspace?” or “Draft a one-page product brief for a todo app.”</p>
            </div>
          )}
          {log.map((x) => (
            <div key={x.id} className="demo-exchange">
              <div className="msg msg-user">
                <div className="msg-bubble">{x.message}</div>
                <div className="msg-meta">
                  <span className="chip chip-small">{x.domain}</span> <span className="chip chip-small">{x.stage}</span>
                </div>
              </div>
              <div className="msg msg-assistant">
                {x.error ? (
                  <Alert kind="error" testId="demo-error">
                    {x.error}
                  </Alert>
                ) : !x.response ? (
                  <div className="activity activity-status" role="status">
                    <Spinner label="Working" /> The {x.stage} agent is working…
                  </div>
                ) : (
                  <>
                    {x.response.agent && (
                      <div className="activity activity-agent" data-testid="demo-agent">
                        {x.response.agent.name}
                        {x.response.agent.role ? ` (${x.response.agent.role})` : ''} · stage {x.response.stage}
                      </div>
                    )}
                    {x.response.tool_calls?.length > 0 && (
                      <div className="tool-list">
                        {x.response.tool_calls.map((t, i) => (
                          <ToolCard key={i} name={t.name} args={t.arguments} result={{ ok: t.ok }} />
                        ))}
                      </div>
                    )}
                    <div className="msg-bubble" data-testid="demo-reply">
                      <Markdown text={x.response.reply} />
                    </div>
                    <div className="msg-meta">provider {x.response.provider}</div>
                  </>
                )}
              </div>
            </div>
          ))}
          <div ref={endRef} />
        </section>

        <form className="composer demo-composer" onSubmit={submit}>
          <textarea
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={onKeyDown}
            rows={2}
            aria-label="Message"
            placeholder="Message the demo agent… (Enter to send)"
            maxLength={32768}
            data-testid="chat-input"
          />
          <button
            type="submit"
            className="btn btn-primary"
            disabled={chat.isPending || !text.trim()}
            data-testid="chat-send"
          >
            {chat.isPending ? 'Sending…' : 'Send'}
          </button>
        </form>
      </main>
    </div>
  );
}
