import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { User } from '../auth/user.entity';
import { Project } from '../projects/project.entity';
import type { AwaitingGate, PendingApproval } from '../runtime/runtime.types';
import { Workflow } from '../workflows/workflow.entity';

export type RunState = 'running' | 'done' | 'error' | 'cancelled' | 'interrupted' | 'awaiting_approval';

export interface RunInput {
  stage: string;
  awaiting_gate: AwaitingGate | null;
  advance: boolean;
  node_key: string | null;
}

/** One turn. Its events are in run_events (seq per run) so a stream can be replayed and resumed. */
@ForeignKey(() => User, ['owner_id'], ['id'], { name: 'runs_owner_id_fkey', onDelete: 'CASCADE' })
@ForeignKey(() => Project, ['project_id'], ['id'], { name: 'runs_project_id_fkey', onDelete: 'CASCADE' })
@ForeignKey(() => Workflow, ['workflow_id'], ['id'], { name: 'runs_workflow_id_fkey', onDelete: 'SET NULL' })
@ForeignKey(() => Run, ['rerun_of'], ['id'], { name: 'runs_rerun_of_fkey', onDelete: 'SET NULL' })
@Index('runs_project', ['project_id', 'created_at'])
@Index('runs_rerun_of', ['rerun_of'])
@Index('runs_by_owner', ['owner_id', 'created_at', 'id'])
// partial indexes over running turns (migrations 1732300000003-runs, 1732300000020-one-turn-per-project)
@Index('runs_state', { synchronize: false })
@Index('runs_running_by_owner', { synchronize: false })
@Index('runs_one_running_per_project', { synchronize: false })
@Entity('runs')
export class Run {
  @PrimaryColumn({ type: 'uuid' }) id: string;
  @Column({ type: 'integer', nullable: true }) owner_id: number | null;
  @Column({ type: 'integer', nullable: true }) project_id: number | null;
  @Column({ type: 'integer', nullable: true }) workflow_id: number | null;
  /** 'chat' | 'stream' | 'demo' */
  @Column({ type: 'varchar', length: 16 }) mode: string;
  @Column({ type: 'varchar', length: 32 }) state: RunState;
  @Column({ type: 'varchar', length: 64, nullable: true }) stage: string | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) node_key: string | null;
  @Column({ type: 'text', default: '' }) reply: string;
  @Column({ type: 'jsonb', default: { input_tokens: 0, output_tokens: 0 } }) usage: {
    input_tokens: number;
    output_tokens: number;
  };
  @Column({ type: 'jsonb', nullable: true }) error: { code: string; message: string } | null;
  @Column({ type: 'integer', default: 0 }) last_seq: number;
  /** how many times the run was started (1; more once interrupted runs can be resumed) */
  @Column({ type: 'integer', default: 1 }) attempts: number;
  /** what the turn was asked (a resume starts it again from here): the project's stage and gate then, advance, node_key */
  @Column({ type: 'jsonb', nullable: true }) input: RunInput | null;
  /** the tool call waiting for a decision while the state is `awaiting_approval` (docs/decisions/runtime.md) */
  @Column({ type: 'jsonb', nullable: true }) pending_approval: PendingApproval | null;
  /** the run this one reruns from a node (docs/decisions/runtime.md, "Rerun from a node") */
  @Column({ type: 'uuid', nullable: true }) rerun_of: string | null;
  /** cluster mode: the worker carrying the run (null while it waits in the queue; docs/decisions/cluster.md) */
  @Column({ type: 'varchar', length: 64, nullable: true }) worker_id: string | null;
  /** cluster mode: a cancel asked for while a worker held the run — whoever carries it next ends it */
  @Column({ type: 'boolean', default: false }) cancel_requested: boolean;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @Column({ type: 'timestamptz', nullable: true }) finished_at: Date | null;
}
