// /studio/workflows/:id — loads the workflow, its graph and the visible agents, then mounts the editor.
import { useCallback, useState } from 'react';
import { useParams } from 'react-router-dom';
import { ReactFlowProvider } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { ErrorState, Loading } from '../../../shared/components/states';
import { isApiError } from '../../../shared/http';
import { useDocumentTitle } from '../../../shared/use-document-title';
import { useAgents } from '../../agents/hooks/use-agents';
import { useWorkflow, useWorkflowGraph } from '../hooks/use-workflows';
import { WorkflowEditor } from './workflow-editor';

export function WorkflowEditorPage() {
  const { id } = useParams();
  const workflowId = Number(id);
  const valid = Number.isInteger(workflowId) && workflowId > 0;
  const workflow = useWorkflow(workflowId);
  const graph = useWorkflowGraph(workflowId);
  const agents = useAgents();
  const [loadCount, setLoadCount] = useState(0);
  useDocumentTitle(workflow.data ? `${workflow.data.name} · Editor` : 'Workflow editor');

  const reload = useCallback(async () => {
    await Promise.all([graph.refetch(), workflow.refetch(), agents.refetch()]);
    setLoadCount((n) => n + 1);
  }, [graph, workflow, agents]);

  if (!valid) return <div className="page"><ErrorState title="Workflow not found" error={new Error(`“${id}” is not a workflow id.`)} /></div>;
  const failed = workflow.error ?? graph.error ?? agents.error;
  if (failed) {
    const notFound = isApiError(failed) && failed.status === 404;
    return (
      <div className="page">
        <ErrorState
          title={notFound ? 'Workflow not found' : 'Could not open the workflow'}
          error={notFound ? new Error('It does not exist, or it belongs to someone else.') : failed}
          onRetry={notFound ? undefined : () => void reload()}
        />
      </div>
    );
  }
  if (!workflow.data || !graph.data || !agents.data) return <div className="page"><Loading label="Loading the workflow…" /></div>;

  return (
    <ReactFlowProvider>
      <WorkflowEditor
        key={`${workflowId}:${loadCount}`}
        workflow={workflow.data}
        graph={graph.data}
        agents={agents.data}
        onReload={reload}
      />
    </ReactFlowProvider>
  );
}
