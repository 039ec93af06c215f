import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('sessions')
export class SessionRecord {
  @PrimaryColumn({ type: 'varchar', length: 128 }) sid: string;
  @Column({ type: 'jsonb' }) sess: Record<string, unknown>;
  @Column({ type: 'integer', nullable: true }) user_id: number | null;
  @Column({ type: 'timestamptz' }) expires_at: Date;
}
