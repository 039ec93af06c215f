import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workflow versions (docs/decisions/workflows.md, "Versions"): the graph of every version a save
 * supersedes is kept, as a snapshot, so an earlier version can be viewed and restored (a restore is a
 * new save; history is never rewritten). Existing workflows get their current graph as a first snapshot.
 */
export class WorkflowVersions1732300000071 implements MigrationInterface {
  name = 'WorkflowVersions1732300000071';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workflow_versions (
        id serial PRIMARY KEY,
        workflow_id integer NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
        version integer NOT NULL,
        nodes jsonb NOT NULL,
        edges jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT workflow_versions_workflow_id_version_key UNIQUE (workflow_id, version)
      );
      INSERT INTO workflow_versions (workflow_id, version, nodes, edges, created_at)
      SELECT w.id, w.version, g.nodes, g.edges, w.updated_at FROM workflows w,
        LATERAL (${snapshotSql('w.id')}) g;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE workflow_versions`);
  }
}

/** The relational graph of one workflow as `{nodes, edges}` jsonb columns, in saved order (frozen here;
 * the save's copy is modules/workflows/workflow-versions.ts). */
function snapshotSql(workflowId: string): string {
  return `SELECT
      COALESCE((SELECT jsonb_agg(jsonb_build_object('node_key', n.node_key, 'type', n.type, 'agent_id', n.agent_id,
                 'stage_label', n.stage_label, 'config', n.config, 'position_x', n.position_x, 'position_y', n.position_y)
                 ORDER BY n.ord) FROM workflow_nodes n WHERE n.workflow_id = ${workflowId}), '[]'::jsonb) AS nodes,
      COALESCE((SELECT jsonb_agg(jsonb_build_object('from_node', e.from_node, 'to_node', e.to_node, 'condition', e.condition)
                 ORDER BY e.ord) FROM workflow_edges e WHERE e.workflow_id = ${workflowId}), '[]'::jsonb) AS edges`;
}
