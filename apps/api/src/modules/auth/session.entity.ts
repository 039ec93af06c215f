import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { User } from './user.entity';

@ForeignKey(() => User, ['user_id'], ['id'], { name: 'sessions_user_id_fkey', onDelete: 'CASCADE' })
@Index('sessions_user_id', ['user_id'])
@Index('sessions_expires_at', ['expires_at'])
@Entity('sessions')
export class SessionRecord {
  @PrimaryColumn({ type: 'varchar', length: 128 }) sid: string;
  @Column({ type: 'jsonb' }) sess: Record<string, unknown>;
  @Column({ type: 'integer', nullable: true }) user_id: number | null;
  @Column({ type: 'timestamptz' }) expires_at: Date;
}
