import { Column, CreateDateColumn, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { Run } from './run.entity';

@ForeignKey(() => Run, ['run_id'], ['id'], { name: 'run_events_run_id_fkey', onDelete: 'CASCADE' })
@Entity('run_events')
export class RunEvent {
  @PrimaryColumn({ type: 'uuid' }) run_id: string;
  @PrimaryColumn({ type: 'integer' }) seq: number;
  @Column({ type: 'varchar', length: 32 }) event: string;
  @Column({ type: 'jsonb' }) data: Record<string, unknown>;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}
