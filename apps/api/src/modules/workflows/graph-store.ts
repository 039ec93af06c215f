/**
 * Reading and replacing a workflow's relational graph (workflow_nodes, workflow_edges), and chunked
 * multi-row inserts for other bulk writes. Always called with a transaction's manager; never a query per row.
 */
import type { GraphEdge, GraphNode } from '@service/workflow-graph';
import type { EntityManager, ObjectLiteral } from 'typeorm';
import { WorkflowEdge } from './workflow-edge.entity';
import { WorkflowNode } from './workflow-node.entity';

/** Rows per INSERT: 500 × 9 columns stays far below Postgres' 65,535 bind parameters. */
const CHUNK = 500;

export interface StoredGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export async function loadGraph(m: EntityManager, workflowId: number): Promise<StoredGraph> {
  const [nodes, edges] = [
    await m.getRepository(WorkflowNode).find({ where: { workflow_id: workflowId }, order: { ord: 'ASC' } }),
    await m.getRepository(WorkflowEdge).find({ where: { workflow_id: workflowId }, order: { ord: 'ASC' } }),
  ];
  return {
    nodes: nodes.map((n) => ({
      node_key: n.node_key,
      type: n.type,
      agent_id: n.agent_id,
      stage_label: n.stage_label,
      config: n.config ?? {},
      position_x: Number(n.position_x),
      position_y: Number(n.position_y),
    })),
    edges: edges.map((e) => ({ from_node: e.from_node, to_node: e.to_node, condition: e.condition })),
  };
}

/**
 * Replaces the whole graph of `workflowId` (the caller holds the workflow row lock and the transaction):
 * two DELETEs and two INSERT … SELECT FROM unnest(…) statements, one array parameter per column, so the
 * statement count does not grow with the graph (2,000 nodes and 5,000 edges are four statements).
 */
export async function replaceGraph(m: EntityManager, workflowId: number, graph: StoredGraph): Promise<void> {
  await m.query('DELETE FROM workflow_edges WHERE workflow_id = $1', [workflowId]);
  await m.query('DELETE FROM workflow_nodes WHERE workflow_id = $1', [workflowId]);
  const { nodes, edges } = graph;
  if (nodes.length) {
    await m.query(
      `INSERT INTO workflow_nodes (workflow_id, ord, node_key, type, agent_id, stage_label, config, position_x, position_y)
       SELECT $1, * FROM unnest($2::int[], $3::varchar[], $4::varchar[], $5::int[], $6::varchar[], $7::jsonb[], $8::float8[], $9::float8[])`,
      [
        workflowId,
        nodes.map((_, ord) => ord),
        nodes.map((n) => n.node_key),
        nodes.map((n) => n.type),
        nodes.map((n) => n.agent_id),
        nodes.map((n) => n.stage_label),
        nodes.map((n) => JSON.stringify(n.config ?? {})),
        nodes.map((n) => n.position_x),
        nodes.map((n) => n.position_y),
      ],
    );
  }
  if (edges.length) {
    await m.query(
      `INSERT INTO workflow_edges (workflow_id, ord, from_node, to_node, condition)
       SELECT $1, * FROM unnest($2::int[], $3::varchar[], $4::varchar[], $5::text[])`,
      [
        workflowId,
        edges.map((_, ord) => ord),
        edges.map((e) => e.from_node),
        edges.map((e) => e.to_node),
        edges.map((e) => e.condition),
      ],
    );
  }
}

/** Multi-row INSERTs of at most CHUNK rows; returns the generated ids in row order. */
export async function insertChunked<T extends ObjectLiteral>(
  m: EntityManager,
  entity: new () => T,
  rows: Array<Partial<T>>,
  opts: { returnIds?: boolean } = {},
): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) {
    const qb = m
      .createQueryBuilder()
      .insert()
      .into(entity)
      .values(rows.slice(i, i + CHUNK))
      .updateEntity(false);
    if (opts.returnIds) {
      const result = await qb.returning('id').execute();
      for (const row of result.raw as Array<{ id: number }>) ids.push(Number(row.id));
    } else {
      await qb.execute();
    }
  }
  return ids;
}
