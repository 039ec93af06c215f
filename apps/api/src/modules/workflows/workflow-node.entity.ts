import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

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
