/**
 * Workflow versions (docs/decisions/workflows.md, "Versions"): a save keeps the graph of the version it
 * supersedes (unless kept already) and of the version it makes, in workflow_versions, inside the save's
 * transaction. Reading them is WorkflowVersionsService's.
 */
import type { EntityManager } from 'typeorm';
import type { StoredGraph } from './graph-store';

/**
 * Called by a graph save holding the workflow's row lock, before it replaces the graph: the current
 * graph (version `current`) is kept when no snapshot of it exists yet (a workflow created, cloned or
 * imported and not saved since). One statement.
 */
export async function keepCurrentVersion(m: EntityManager, workflowId: number, current: number): Promise<void> {
  await m.query(
    `INSERT INTO workflow_versions (workflow_id, version, nodes, edges)
     SELECT $1, $2, g.nodes, g.edges FROM (${SNAPSHOT_SQL}) g
      WHERE NOT EXISTS (SELECT 1 FROM workflow_versions WHERE workflow_id = $1 AND version = $2)`,
    [workflowId, current],
  );
}

/** After the save: the new version's graph, as saved. */
export async function keepSavedVersion(
  m: EntityManager,
  workflowId: number,
  version: number,
  graph: StoredGraph,
): Promise<void> {
  await m.query(
    `INSERT INTO workflow_versions (workflow_id, version, nodes, edges) VALUES ($1, $2, $3::jsonb, $4::jsonb)
     ON CONFLICT (workflow_id, version) DO NOTHING`,
    [workflowId, version, JSON.stringify(graph.nodes), JSON.stringify(graph.edges)],
  );
}

/** The current relational graph of workflow $1 as `{nodes, edges}` jsonb, in saved order (as graph-store reads it). */
const SNAPSHOT_SQL = `SELECT
    COALESCE((SELECT jsonb_agg(jsonb_build_object('node_key', n.node_key, 'type', n.type, 'agent_id', n.agent_id,
               'stage_label', n.stage_label, 'config', n.config, 'position_x', n.position_x, 'position_y', n.position_y)
               ORDER BY n.ord) FROM workflow_nodes n WHERE n.workflow_id = $1), '[]'::jsonb) AS nodes,
    COALESCE((SELECT jsonb_agg(jsonb_build_object('from_node', e.from_node, 'to_node', e.to_node, 'condition', e.condition)
               ORDER BY e.ord) FROM workflow_edges e WHERE e.workflow_id = $1), '[]'::jsonb) AS edges`;
