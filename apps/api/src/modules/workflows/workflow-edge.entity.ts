import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { Workflow } from './workflow.entity';

@ForeignKey(() => Workflow, ['workflow_id'], ['id'], { name: 'workflow_edges_workflow_id_fkey', onDelete: 'CASCADE' })
@Index('workflow_edges_workflow', ['workflow_id', 'ord'])
@Entity('workflow_edges')
export class WorkflowEdge {
  @PrimaryGeneratedColumn() id: number;
  @Column({ type: 'integer' }) workflow_id: number;
  /** Position in the saved edge list: a branch takes its first matching edge in this order. */
  @Column({ type: 'integer' }) ord: number;
  @Column({ type: 'varchar', length: 64 }) from_node: string;
  @Column({ type: 'varchar', length: 64 }) to_node: string;
  @Column({ type: 'text', nullable: true }) condition: string | null;
}
