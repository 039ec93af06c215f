import type { GraphEdge, GraphNode } from '@service/workflow-graph';
import { Column, CreateDateColumn, Entity, ForeignKey, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Workflow } from './workflow.entity';

/** The graph a workflow had at one version, kept when a save supersedes it (workflow-versions.ts). */
@ForeignKey(() => Workflow, ['workflow_id'], ['id'], {
  name: 'workflow_versions_workflow_id_fkey',
  onDelete: 'CASCADE',
})
@Unique('workflow_versions_workflow_id_version_key', ['workflow_id', 'version'])
@Entity('workflow_versions')
export class WorkflowVersion {
  @PrimaryGeneratedColumn() id: number;
  @Column({ type: 'integer' }) workflow_id: number;
  @Column({ type: 'integer' }) version: number;
  @Column({ type: 'jsonb' }) nodes: GraphNode[];
  @Column({ type: 'jsonb' }) edges: GraphEdge[];
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}
