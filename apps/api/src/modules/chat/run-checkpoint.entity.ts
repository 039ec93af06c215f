import { Column, CreateDateColumn, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import type { Step } from '../runtime/step-log';
import { Run } from './run.entity';

/**
 * One completed step of a turn (runtime/step-log.ts), stored with the run events before it (`event_seq`
 * is the last of them). Deleted when the run ends, unless it ended `interrupted` and can be resumed
 * (docs/decisions/runtime.md, "Durable runs").
 */
@ForeignKey(() => Run, ['run_id'], ['id'], { name: 'run_checkpoints_run_id_fkey', onDelete: 'CASCADE' })
@Entity('run_checkpoints')
export class RunCheckpoint {
  @PrimaryColumn({ type: 'uuid' }) run_id: string;
  @PrimaryColumn({ type: 'integer' }) step: number;
  @Column({ type: 'integer' }) event_seq: number;
  @Column({ type: 'jsonb' }) data: Step;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}
