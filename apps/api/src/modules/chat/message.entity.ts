import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { Project } from '../projects/project.entity';
import type { PendingApproval } from '../runtime/runtime.types';
import { Run } from './run.entity';

/** A stage move asked for by the user: from, to, and the gate it approved (null when none was pending). */
export interface StageChange {
  from: string;
  to: string;
  gate: string | null;
}

export type MessageState = 'done' | 'stopped' | 'failed' | 'interrupted' | 'awaiting_approval';

/** A project's chat history: user and assistant messages, with the assistant's tool calls. */
@ForeignKey(() => Project, ['project_id'], ['id'], { name: 'messages_project_id_fkey', onDelete: 'CASCADE' })
@ForeignKey(() => Run, ['run_id'], ['id'], { name: 'messages_run_id_fkey', onDelete: 'SET NULL' })
@Index('messages_project', ['project_id', 'id'])
@Entity('messages')
export class Message {
  @PrimaryGeneratedColumn() id: number;
  @Column({ type: 'integer' }) project_id: number;
  @Column({ type: 'uuid', nullable: true }) run_id: string | null;
  @Column({ type: 'varchar', length: 16 }) role: 'user' | 'assistant';
  @Column({ type: 'text' }) content: string;
  @Column({ type: 'varchar', length: 64, nullable: true }) stage: string | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) node_key: string | null;
  @Column({ type: 'integer', nullable: true }) agent_id: number | null;
  @Column({ type: 'jsonb', default: () => "'[]'" }) tool_calls: Array<{
    name: string;
    arguments: unknown;
    ok: boolean;
  }>;
  /** how the assistant's turn ended; always `done` for a user message */
  @Column({ type: 'varchar', length: 32, default: 'done' }) state: MessageState;
  @Column({ type: 'jsonb', nullable: true }) error: { code: string; message: string } | null;
  /** set on the user's entry of a turn that moved the project (Advance, a gate approval) */
  @Column({ type: 'jsonb', nullable: true }) stage_change: StageChange | null;
  /** the tool call waiting for a decision (state `awaiting_approval`; docs/decisions/runtime.md) */
  @Column({ type: 'jsonb', nullable: true }) pending_approval: PendingApproval | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}
