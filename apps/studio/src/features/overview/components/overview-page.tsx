// /studio — counts of the building blocks, the server's default provider, and the next step to take.
import { Link, useNavigate } from 'react-router-dom';
import type { UseQueryResult } from '@tanstack/react-query';
import { Badge } from '../../../shared/components/badge';
import { Icon } from '../../../shared/components/icon';
import { PageHeader } from '../../../shared/components/page-header';
import { Spinner } from '../../../shared/components/states';
import { useToast } from '../../../shared/components/toast';
import { errorMessage } from '../../../shared/http';
import { useDocumentTitle } from '../../../shared/use-document-title';
import { useAgents } from '../../agents/hooks/use-agents';
import { useMe } from '../../auth/hooks/use-auth';
import { useModels } from '../../models/hooks/use-models';
import { useCreateProject, useProjects } from '../../run/hooks/use-run-data';
import { useSkills } from '../../skills/hooks/use-skills';
import { useWorkflows } from '../../workflows/hooks/use-workflows';
import { useAgentStatus } from '../hooks/use-status';

function CountCard({
  title,
  to,
  query,
  hint,
}: {
  title: string;
  to: string;
  query: UseQueryResult<{ is_system: boolean }[]>;
  hint: string;
}) {
  const own = query.data?.filter((r) => !r.is_system).length ?? 0;
  const system = query.data?.filter((r) => r.is_system).length ?? 0;
  return (
    <Link to={to} className="card card-link" data-testid={`count-${title.toLowerCase()}`}>
      <span className="card-label">{title}</span>
      <span className="card-count">
        {query.isPending ? <Spinner label={`Loading ${title}`} /> : query.isError ? '—' : query.data.length}
      </span>
      <span className="muted small">
        {query.isError ? errorMessage(query.error) : query.data ? `${own} yours · ${system} system` : hint}
      </span>
    </Link>
  );
}

export function OverviewPage() {
  useDocumentTitle('Overview');
  const me = useMe();
  const models = useModels();
  const skills = useSkills();
  const agents = useAgents();
  const workflows = useWorkflows();
  const status = useAgentStatus();
  const projects = useProjects();
  const createProject = useCreateProject();
  const navigate = useNavigate();
  const toast = useToast();
  // The first-run path: no project yet → one button that makes one on the PDLC pack and opens it.
  const starter = workflows.data?.find((w) => w.is_system && w.slug === 'pdlc') ?? workflows.data?.[0];
  const firstRun = projects.data?.length === 0 && !!starter;
  const startFirst = () => {
    if (!starter) return;
    createProject.mutate(
      { slug: 'my-first-project', name: 'My first project', pack_id: starter.id },
      {
        onSuccess: (p) => void navigate(`/studio/workflows/${starter.id}/run?project=${encodeURIComponent(p.slug)}`),
        onError: (e) => toast.show(`Could not create the project: ${errorMessage(e)}`, 'error'),
      },
    );
  };

  const steps = [
    {
      done: models.data?.some((m) => !m.is_system) ?? false,
      label: 'Bind a model',
      to: '/studio/models',
      optional: true,
    },
    { done: skills.data?.some((s) => !s.is_system) ?? false, label: 'Write a skill', to: '/studio/skills' },
    { done: agents.data?.some((a) => !a.is_system) ?? false, label: 'Create an agent', to: '/studio/agents' },
    {
      done: workflows.data?.some((w) => !w.is_system) ?? false,
      label: 'Create or clone a workflow',
      to: '/studio/workflows',
    },
  ];
  const firstWorkflow = workflows.data?.find((w) => !w.is_system) ?? workflows.data?.[0];

  return (
    <div className="page" data-testid="overview-page">
      <PageHeader
        title={`Welcome${me.data ? `, ${me.data.username}` : ''}`}
        subtitle="Design agents and staged workflows, then run them on your projects."
      />
      {firstRun && starter && (
        <section className="panel first-run" aria-labelledby="first-run-title" data-testid="first-project">
          <div>
            <h2 id="first-run-title">Run your first project</h2>
            <p className="muted">
              A project on “{starter.name}”: describe your idea, and the {starter.stages[0]} stage's agent writes the
              first document into the project's files. Nothing to set up first — the server's model answers.
            </p>
          </div>
          <button
            type="button"
            className="btn btn-primary btn-large"
            onClick={startFirst}
            disabled={createProject.isPending}
            data-testid="first-project-start"
          >
            {createProject.isPending ? 'Creating…' : 'Start my first project'}
          </button>
        </section>
      )}
      <section className="cards" aria-label="Counts">
        <CountCard title="Models" to="/studio/models" query={models} hint="Language-model endpoints" />
        <CountCard title="Skills" to="/studio/skills" query={skills} hint="Prompt overlays" />
        <CountCard title="Agents" to="/studio/agents" query={agents} hint="Model + skills + prompt" />
        <CountCard title="Workflows" to="/studio/workflows" query={workflows} hint="Staged graphs" />
      </section>

      <div className="grid-2">
        <section className="panel" aria-labelledby="provider-title" data-testid="provider-card">
          <h2 id="provider-title">Server model</h2>
          {status.isPending ? (
            <Spinner />
          ) : status.isError ? (
            <p className="field-error">{errorMessage(status.error)}</p>
          ) : (
            <>
              <p>
                Provider <strong data-testid="provider-name">{status.data.provider}</strong>
                {status.data.model && (
                  <>
                    {' '}
                    · model <code>{status.data.model}</code>
                  </>
                )}
              </p>
              {status.data.provider === 'offline' && (
                <p className="muted small">
                  No language model is configured on the server: the built-in offline provider runs every flow
                  deterministically, without a network. Bind a model or set <code>LLM_PROVIDER</code> to use a real one.
                </p>
              )}
              <p className="chips">
                {(['vendor_a', 'vendor_b', 'custom'] as const).map((k) => (
                  <Badge key={k} kind={status.data.configured?.[k] ? 'success' : 'neutral'}>
                    {k === 'vendor_a' ? 'OpenAI key' : k === 'vendor_b' ? 'Anthropic key' : 'Custom endpoint'}:{' '}
                    {status.data.configured?.[k] ? 'yes' : 'no'}
                  </Badge>
                ))}
              </p>
              {status.data.version && <p className="muted small">Service version {status.data.version}</p>}
            </>
          )}
        </section>

        <section className="panel" aria-labelledby="start-title">
          <h2 id="start-title">Getting started</h2>
          <ol className="checklist">
            {steps.map((s) => (
              <li key={s.label} className={s.done ? 'done' : ''}>
                {s.done ? (
                  <Icon name="check" size={14} className="check-done" />
                ) : (
                  <span className="check-open" aria-hidden="true" />
                )}{' '}
                <Link to={s.to}>{s.label}</Link>
                {s.optional && <span className="muted small"> (optional — the server default works)</span>}
                {s.done && <span className="sr-only"> (done)</span>}
              </li>
            ))}
            <li>
              <Icon name="play" size={12} />{' '}
              {firstWorkflow ? (
                <Link to={`/studio/workflows/${firstWorkflow.id}/run`}>Run “{firstWorkflow.name}” on a project</Link>
              ) : (
                'Run a workflow on a project'
              )}
            </li>
          </ol>
        </section>
      </div>
    </div>
  );
}
