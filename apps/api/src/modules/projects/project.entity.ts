import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export interface AwaitingGate {
  node_key: string;
  stage: string;
  next_stage: string | null;
}

/** A project: a workspace of files, a chat history and its workflow state (docs/API.md). Always user-owned. */
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
