// /studio/agents — a model, skills, a role and a prompt (docs/API.md Agent).
import { ResourcePage } from '../../../shared/components/resource-page';
import { useDocumentTitle } from '../../../shared/use-document-title';
import { useModels } from '../../models/hooks/use-models';
import { useDeleteAgent, useAgents } from '../hooks/use-agents';
import { AgentForm } from './agent-form';

export function AgentsPage() {
  useDocumentTitle('Agents');
  const agents = useAgents();
  const models = useModels();
  const del = useDeleteAgent();
  const modelName = (id: number | null) =>
    id === null ? (
      <span className="muted">server default</span>
    ) : (
      (models.data?.find((m) => m.id === id)?.label ?? `#${id}`)
    );
  return (
    <ResourcePage
      title="Agents"
      subtitle="Each agent runs a ReAct loop with its model, prompt, skills and tools."
      noun="agent"
      testId="agents"
      query={agents}
      nameOf={(a) => a.name}
      Form={AgentForm}
      deleteMutation={del}
      emptyText="Create an agent from a model and some skills, then place it on a workflow."
      columns={[
        { header: 'Name', cell: (a) => <strong>{a.name}</strong> },
        { header: 'Role', cell: (a) => a.role || <span className="muted">—</span> },
        { header: 'Model', cell: (a) => modelName(a.model_id) },
        { header: 'Skills', cell: (a) => a.skill_ids.length, className: 'num' },
        { header: 'Max iterations', cell: (a) => a.max_iterations, className: 'num' },
      ]}
    />
  );
}
