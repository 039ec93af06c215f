// /studio/workflows/:id — loads the workflow (its record carries the graph) and the visible agents, then
// mounts the editor. One request for the graph: GET …/workflows/{id} already has nodes, edges and version.
import { useCallback, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { ReactFlowProvider } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { ErrorState, Loading } from '../../../shared/components/states';
import { isApiError } from '../../../shared/http';
import { useDocumentTitle } from '../../../shared/use-document-title';
import { useAgents } from '../../agents/hooks/use-agents';
import { useWorkflow } from '../hooks/use-workflows';
import { WorkflowEditor } from './workflow-editor';

export function WorkflowEditorPage() {
  const { id } = useParams();
  const workflowId = Number(id);
  const valid = Number.isInteger(workflowId) && workflowId > 0;
  const workflow = useWorkflow(workflowId);
  const agents = useAgents();
  const [loadCount, setLoadCount] = useState(0);
  useDocumentTitle(workflow.data ? `${workflow.data.name} · Editor` : 'Workflow editor');

  // The editor takes the graph as its initial draft only (it is keyed by loadCount), so a background
  // refetch of the record never swaps the graph under unsaved edits; Reload remounts it.
  const detail = workflow.data;
  const graph = useMemo(
    () => (detail ? { nodes: detail.nodes, edges: detail.edges, version: detail.version } : null),
    [detail],
  );

  const reload = useCallback(async () => {
    await Promise.all([workflow.refetch(), agents.refetch()]);
    setLoadCount((n) => n + 1);
  }, [workflow, agents]);

  const back = (
    <p>
      <Link to="/studio/workflows" className="btn" data-testid="back-to-workflows">
        ← Back to workflows
      </Link>
    </p>
  );
  if (!valid)
    return (
      <div className="page">
        <ErrorState title="Workflow not found" error={new Error(`“${id}” is not a workflow id.`)} />
        {back}
      </div>
    );
  const failed = workflow.error ?? agents.error;
  if (failed) {
    const notFound = isApiError(failed) && failed.status === 404;
    return (
      <div className="page">
        <ErrorState
          title={notFound ? 'Workflow not found' : 'Could not open the workflow'}
          error={notFound ? new Error('It does not exist, or it belongs to someone else.') : failed}
          onRetry={notFound ? undefined : () => void reload()}
        />
        {back}
      </div>
    );
  }
  if (!workflow.data || !graph || !agents.data)
    return (
      <div className="page">
        <Loading label="Loading the workflow…" />
      </div>
    );

  return (
    <ReactFlowProvider>
      <WorkflowEditor
        key={`${workflowId}:${loadCount}`}
        workflow={workflow.data}
        graph={graph}
        agents={agents.data}
        onReload={reload}
      />
    </ReactFlowProvider>
  );
}
