import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type RunState = 'running' | 'done' | 'error' | 'cancelled' | 'interrupted';

/** One turn. Its events are in run_events (seq per run) so a stream can be replayed and resumed. */
@Entity('runs')
export class Run {
  @PrimaryColumn({ type: 'uuid' }) id: string;
  @Column({ type: 'integer', nullable: true }) owner_id: number | null;
  @Column({ type: 'integer', nullable: true }) project_id: number | null;
  @Column({ type: 'integer', nullable: true }) workflow_id: number | null;
  /** 'chat' | 'stream' | 'demo' */
  @Column({ type: 'varchar', length: 16 }) mode: string;
  @Column({ type: 'varchar', length: 16 }) state: RunState;
  @Column({ type: 'varchar', length: 64, nullable: true }) stage: string | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) node_key: string | null;
  @Column({ type: 'text', default: '' }) reply: string;
  @Column({ type: 'jsonb' }) usage: { input_tokens: number; output_tokens: number };
  @Column({ type: 'jsonb', nullable: true }) error: { code: string; message: string } | null;
  @Column({ type: 'integer', default: 0 }) last_seq: number;
  /** how many times the run was started (1; more once interrupted runs can be resumed) */
  @Column({ type: 'integer', default: 1 }) attempts: number;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @Column({ type: 'timestamptz', nullable: true }) finished_at: Date | null;
}
