import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity('run_events')
export class RunEvent {
  @PrimaryColumn({ type: 'uuid' }) run_id: string;
  @PrimaryColumn({ type: 'integer' }) seq: number;
  @Column({ type: 'varchar', length: 32 }) event: string;
  @Column({ type: 'jsonb' }) data: Record<string, unknown>;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}
