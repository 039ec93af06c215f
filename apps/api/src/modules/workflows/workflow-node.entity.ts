import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Agent } from '../agents/agent.entity';
import { Workflow } from './workflow.entity';

@ForeignKey(() => Workflow, ['workflow_id'], ['id'], { name: 'workflow_nodes_workflow_id_fkey', onDelete: 'CASCADE' })
@ForeignKey(() => Agent, ['agent_id'], ['id'], { name: 'workflow_nodes_agent_id_fkey', onDelete: 'RESTRICT' })
@Unique('workflow_nodes_workflow_id_node_key_key', ['workflow_id', 'node_key'])
@Index('workflow_nodes_agent', ['agent_id'])
@Entity('workflow_nodes')
export class WorkflowNode {
  @PrimaryGeneratedColumn() id: number;
  @Column({ type: 'integer' }) workflow_id: number;
  /** Position in the saved node list (order matters for traversal). */
  @Column({ type: 'integer' }) ord: number;
  @Column({ type: 'varchar', length: 64 }) node_key: string;
  @Column({ type: 'varchar', length: 16 }) type: 'agent' | 'gate' | 'branch';
  @Column({ type: 'integer', nullable: true }) agent_id: number | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) stage_label: string | null;
  @Column({ type: 'jsonb', default: () => "'{}'" }) config: Record<string, unknown>;
  @Column({ type: 'double precision', default: 0 }) position_x: number;
  @Column({ type: 'double precision', default: 0 }) position_y: number;
}
