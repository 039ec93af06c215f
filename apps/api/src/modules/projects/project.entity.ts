import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { User } from '../auth/user.entity';
import { Workflow } from '../workflows/workflow.entity';

export interface AwaitingGate {
  node_key: string;
  stage: string;
  next_stage: string | null;
}

/** A project: a workspace of files, a chat history and its workflow state (docs/API.md). Always user-owned. */
@ForeignKey(() => User, ['owner_id'], ['id'], { name: 'projects_owner_id_fkey', onDelete: 'CASCADE' })
@ForeignKey(() => Workflow, ['pack_id'], ['id'], { name: 'projects_pack_id_fkey', onDelete: 'RESTRICT' })
@Unique('projects_owner_id_slug_key', ['owner_id', 'slug'])
@Index('projects_pack', ['pack_id'])
@Entity('projects')
export class Project {
  @PrimaryGeneratedColumn() id: number;
  @Column({ type: 'integer' }) owner_id: number;
  @Column({ type: 'varchar', length: 64 }) slug: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'integer', nullable: true }) pack_id: number | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) domain: string | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) stage: string | null;
  @Column({ type: 'jsonb', nullable: true }) awaiting_gate: AwaitingGate | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}
