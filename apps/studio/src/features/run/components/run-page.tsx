// /studio/workflows/:id/run — the workspace bound to a pack: project picker, pack dropdown, stage strip
// with Advance, gate approval, the streamed chat and the project's files (docs/API.md, §6, §8).
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import type { AgentPack } from '../../../shared/api-types';
import { Alert } from '../../../shared/components/alert';
import { Badge } from '../../../shared/components/badge';
import { ConfirmDialog } from '../../../shared/components/confirm-dialog';
import { EmptyState, ErrorState, Loading } from '../../../shared/components/states';
import { useToast } from '../../../shared/components/toast';
import { errorMessage, isApiError } from '../../../shared/http';
import { useDocumentTitle } from '../../../shared/use-document-title';
import { runApi } from '../api/run-api';
import { useBindWorkflow, useCreateProject, usePacks, useProjects, useWorkflowState } from '../hooks/use-run-data';
import { useTurnStream } from '../hooks/use-turn-stream';
import { ApprovalCard } from './approval-card';
import { ChatPanel } from './chat-panel';
import { FilesPanel } from './files-panel';
import { ProjectActions } from './project-actions';
import { ProjectPicker } from './project-picker';
import { StageStrip } from './stage-strip';

export function RunPage() {
  const { id } = useParams();
  const packId = Number(id);
  const [params, setParams] = useSearchParams();
  const slug = params.get('project');
  const navigate = useNavigate();
  const toast = useToast();

  const packs = usePacks();
  const projects = useProjects();
  const state = useWorkflowState(slug);
  const bind = useBindWorkflow();
  const createProject = useCreateProject();
  const chat = useTurnStream(slug);

  const pack = packs.data?.find((p) => p.pack_id === packId);
  const boundPack = state.data ? packs.data?.find((p) => p.pack_id === state.data.pack_id) : undefined;
  useDocumentTitle(pack ? `Run · ${pack.name}` : 'Run');

  const selectProject = useCallback(
    (next: string | null) => {
      const p = new URLSearchParams(params);
      if (next) p.set('project', next);
      else p.delete('project');
      setParams(p, { replace: false });
    },
    [params, setParams],
  );

  // Remember the last project per pack so the page reopens where the user left off (once per visit).
  const restored = useRef(false);
  useEffect(() => {
    const key = `studio.run.project.${packId}`;
    try {
      if (slug) {
        localStorage.setItem(key, slug);
        restored.current = true;
        return;
      }
      if (restored.current || !projects.data) return;
      restored.current = true;
      const last = localStorage.getItem(key);
      if (last && projects.data.some((p) => p.slug === last)) setParams({ project: last }, { replace: true });
    } catch {
      // Storage unavailable (private mode): nothing to remember.
    }
  }, [packId, slug, projects.data, setParams]);

  const bindTo = useCallback(
    (target: AgentPack, stage: string, projectSlug: string) =>
      bind.mutateAsync({ slug: projectSlug, input: { domain: target.domain, stage, pack_id: target.pack_id } }),
    [bind],
  );

  const onCreateProject = async (input: { slug: string; name: string }) => {
    if (!pack) throw new Error('No pack');
    await createProject.mutateAsync({ slug: input.slug, name: input.name, pack_id: pack.pack_id });
    try {
      await bindTo(pack, pack.stages[0] ?? '', input.slug);
    } catch (e) {
      toast.show(`Project created, but binding failed: ${errorMessage(e)}`, 'error');
    }
    toast.show(`Project “${input.name}” created`);
    selectProject(input.slug);
  };

  const onPackChange = async (nextId: number) => {
    const target = packs.data?.find((p) => p.pack_id === nextId);
    if (!target) return;
    if (slug) {
      try {
        await bindTo(target, target.stages[0] ?? '', slug);
        toast.show(`Bound ${slug} to “${target.name}”`);
      } catch (e) {
        toast.show(`Could not bind: ${errorMessage(e)}`, 'error');
        return;
      }
    }
    void navigate(`/studio/workflows/${nextId}/run${slug ? `?project=${encodeURIComponent(slug)}` : ''}`);
  };

  // Moving backwards (to an earlier stage) asks first: the later stages' work stays, but the agents
  // start again from the earlier stage (issue 13 item 8).
  const [backTo, setBackTo] = useState<string | null>(null);
  const pickStage = (stage: string) => {
    const stages = state.data?.stages ?? [];
    const cur = state.data?.stage ? stages.indexOf(state.data.stage) : -1;
    if (cur >= 0 && stages.indexOf(stage) < cur) setBackTo(stage);
    else void onStage(stage);
  };

  const onStage = async (stage: string) => {
    if (!slug || !state.data?.domain || !state.data.pack_id) return;
    try {
      await bind.mutateAsync({ slug, input: { domain: state.data.domain, stage, pack_id: state.data.pack_id } });
    } catch (e) {
      toast.show(`Could not move to ${stage}: ${errorMessage(e)}`, 'error');
    }
  };

  // A turn of this project is in flight (e.g. the page was reloaded mid-turn): follow it live.
  const runningRunId = state.data?.running_run_id ?? null;
  const { attach, streaming } = chat;
  useEffect(() => {
    if (runningRunId && !streaming) attach(runningRunId);
  }, [runningRunId, streaming, attach]);

  const advance = () => {
    if (!state.data) return;
    chat.send({ message: '', advance: true, pack_id: state.data.pack_id ?? undefined });
  };

  const send = (message: string) => {
    if (!state.data) return;
    chat.send({ message, pack_id: state.data.pack_id ?? undefined });
  };
  // a new run from a node of a finished one (docs/API.md, "Rerun from a node"), followed like any turn
  const rerun = (runId: string, nodeKey: string, restoreWorkspace: boolean) => {
    runApi.rerun(runId, { node_key: nodeKey, restore_workspace: restoreWorkspace }).then(
      (r) => chat.attach(r.run_id),
      (e: unknown) => toast.show(`Could not rerun from ${nodeKey}: ${errorMessage(e)}`, 'error'),
    );
  };

  // ---------------------------------------------------------------- render
  if (packs.isPending)
    return (
      <div className="page">
        <Loading label="Loading workflows…" />
      </div>
    );
  if (packs.isError)
    return (
      <div className="page">
        <ErrorState error={packs.error} onRetry={() => void packs.refetch()} />
      </div>
    );
  if (!pack) {
    return (
      <div className="page">
        <ErrorState
          title="Workflow not found"
          error={new Error('This workflow does not exist or is not visible to you.')}
        />
        <p>
          <Link to="/studio/workflows">Back to workflows</Link>
        </p>
      </div>
    );
  }

  const stateMissing = isApiError(state.error) && state.error.status === 404;
  const stages = state.data?.stages?.length ? state.data.stages : (boundPack?.stages ?? pack.stages);
  const current = state.data?.stage ?? null;
  const atLast = current !== null && stages.indexOf(current) === stages.length - 1;
  const mismatch = !!state.data && state.data.pack_id !== pack.pack_id;
  const gate = state.data?.awaiting_gate ?? null;
  const busy = chat.streaming || bind.isPending;
  const currentProject = slug ? projects.data?.find((p) => p.slug === slug) : undefined;

  return (
    <div className="page run-page" data-testid="run-page">
      <header className="run-header">
        <div className="run-title">
          <h1>
            Run <span className="muted">·</span> {pack.name}
          </h1>
          <Badge kind="info">{pack.domain}</Badge>
          {pack.is_system && <Badge kind="system">System</Badge>}
          <Link to={`/studio/workflows/${pack.pack_id}`} className="btn-link small">
            {pack.is_system ? 'View graph' : 'Edit graph'}
          </Link>
        </div>
        <div className="run-controls">
          <ProjectPicker
            projects={projects.data ?? []}
            loading={projects.isPending}
            value={slug}
            onSelect={selectProject}
            onCreate={onCreateProject}
            creating={createProject.isPending || bind.isPending}
            createError={createProject.error}
          />
          {slug && currentProject && (
            <ProjectActions
              key={currentProject.slug}
              project={currentProject}
              busy={busy}
              onDeleted={() => {
                try {
                  localStorage.removeItem(`studio.run.project.${packId}`);
                } catch {
                  // storage unavailable
                }
                selectProject(null);
              }}
            />
          )}
          <label className="inline-field">
            <span>Pack</span>
            <select
              value={String(state.data?.pack_id ?? pack.pack_id)}
              onChange={(e) => void onPackChange(Number(e.target.value))}
              disabled={busy}
              data-testid="pack-select"
            >
              {(packs.data ?? []).map((p) => (
                <option key={p.pack_id} value={p.pack_id}>
                  {p.name} ({p.slug}){p.is_system ? ' — system' : ''}
                </option>
              ))}
            </select>
          </label>
        </div>
      </header>

      {projects.isError && <Alert kind="error">Could not load your projects: {errorMessage(projects.error)}</Alert>}

      {!slug ? (
        <EmptyState title="Choose a project" action={null}>
          Pick one of your projects above, or create a new one: it gets its own workspace files, chat history and stage,
          bound to “{pack.name}”.
        </EmptyState>
      ) : state.isPending ? (
        <Loading label="Loading the project…" />
      ) : stateMissing ? (
        <EmptyState
          title={`Project “${slug}” is not bound yet`}
          action={
            <button
              type="button"
              className="btn btn-primary"
              onClick={() =>
                void bindTo(pack, pack.stages[0] ?? '', slug).catch((e) => toast.show(errorMessage(e), 'error'))
              }
              disabled={bind.isPending}
              data-testid="bind-project"
            >
              Bind to “{pack.name}”
            </button>
          }
        >
          Binding creates the project if needed and starts it at the first stage ({pack.stages[0]}).
        </EmptyState>
      ) : state.isError ? (
        <ErrorState error={state.error} onRetry={() => void state.refetch()} />
      ) : (
        <>
          {mismatch && (
            <Alert
              kind="warning"
              testId="pack-mismatch"
              title={`“${slug}” is bound to ${boundPack ? `“${boundPack.name}”` : `pack #${state.data.pack_id}`}`}
              action={
                <div className="row-actions">
                  <button
                    type="button"
                    className="btn btn-small btn-primary"
                    onClick={() => void onPackChange(pack.pack_id)}
                    disabled={busy}
                  >
                    Bind to “{pack.name}”
                  </button>
                  {boundPack && (
                    <Link
                      className="btn btn-small"
                      to={`/studio/workflows/${boundPack.pack_id}/run?project=${encodeURIComponent(slug)}`}
                    >
                      Open its pack
                    </Link>
                  )}
                </div>
              }
            >
              Messages run with the bound pack.
            </Alert>
          )}
          <div className="stage-bar">
            <StageStrip
              stages={stages}
              current={current}
              disabled={busy}
              onSelect={pickStage}
              gateAfter={gate?.stage ?? null}
            />
            <button
              type="button"
              className="btn"
              onClick={advance}
              disabled={busy || atLast}
              data-testid="advance-stage"
              title={atLast ? 'This is the last stage' : 'Approve this stage and move to the next one'}
            >
              Advance stage →
            </button>
          </div>
          {gate && (
            <Alert
              kind="warning"
              testId="gate-banner"
              title={`Gate before ${gate.next_stage}`}
              action={
                <button
                  type="button"
                  className="btn btn-primary btn-small"
                  onClick={advance}
                  disabled={busy}
                  data-testid="gate-approve"
                >
                  Approve and advance
                </button>
              }
            >
              The {gate.stage} stage is done and waits for your approval (gate <code>{gate.node_key}</code>).
            </Alert>
          )}
          <ConfirmDialog
            open={backTo !== null}
            title={`Move the project back to ${backTo ?? ''}?`}
            confirmLabel={`Move back to ${backTo ?? ''}`}
            danger={false}
            pending={bind.isPending}
            onCancel={() => setBackTo(null)}
            onConfirm={() => {
              const target = backTo;
              setBackTo(null);
              if (target) void onStage(target);
            }}
          >
            <p>
              The project is at <strong>{current}</strong>. Its files and history stay; the next message goes to the{' '}
              {backTo} stage's agent, and a pending gate is cleared.
            </p>
          </ConfirmDialog>
          {state.data?.awaiting_approval && !chat.streaming && (
            <ApprovalCard
              key={state.data.awaiting_approval.call_id}
              pending={state.data.awaiting_approval}
              onDecided={chat.follow}
            />
          )}
          {chat.notice && (
            <Alert kind="info" testId="turn-in-progress">
              {chat.notice}
            </Alert>
          )}
          <div className="run-body">
            <ChatPanel
              projectSlug={slug}
              turn={chat.turn}
              streaming={chat.streaming}
              reconnecting={chat.streamState.status === 'reconnecting'}
              onSend={send}
              onStop={chat.stop}
              onDismiss={chat.dismiss}
              onRerun={state.data?.awaiting_approval ? undefined : rerun}
              disabledReason={
                state.data?.awaiting_approval ? 'A tool call waits for your approval above: decide it first.' : null
              }
            />
            <FilesPanel projectSlug={slug} changed={chat.changedPaths} />
          </div>
        </>
      )}
    </div>
  );
}
