// /studio/models — bound language-model endpoints (docs/API.md Model).
import { ResourcePage } from '../../../shared/components/resource-page';
import { Badge } from '../../../shared/components/badge';
import { useDocumentTitle } from '../../../shared/use-document-title';
import { providerLabel } from '../api/models-api';
import { useDeleteModel, useModels } from '../hooks/use-models';
import { ModelForm } from './model-form';

export function ModelsPage() {
  useDocumentTitle('Models');
  const models = useModels();
  const del = useDeleteModel();
  return (
    <ResourcePage
      title="Models"
      subtitle="Language-model endpoints your agents call. Agents without a model use the server default."
      noun="model"
      testId="models"
      query={models}
      nameOf={(m) => m.label}
      Form={ModelForm}
      deleteMutation={del}
      emptyText="Bind an OpenAI, Anthropic or OpenAI-compatible endpoint (Ollama, vLLM, LM Studio…)."
      columns={[
        { header: 'Label', cell: (m) => <strong>{m.label}</strong> },
        { header: 'Provider', cell: (m) => providerLabel(m.provider) },
        { header: 'Model', cell: (m) => <code>{m.model_id}</code> },
        {
          header: 'Key',
          cell: (m) =>
            m.has_api_key ? <Badge kind="success">key stored</Badge> : <span className="muted">server key</span>,
        },
      ]}
    />
  );
}
