import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { User } from './user.entity';

@ForeignKey(() => User, ['user_id'], ['id'], { name: 'access_tokens_user_id_fkey', onDelete: 'CASCADE' })
@Unique('access_tokens_token_hash_key', ['token_hash'])
@Index('access_tokens_user_id', ['user_id'])
@Entity('access_tokens')
export class AccessToken {
  @PrimaryGeneratedColumn() id: number;
  @Column({ type: 'integer' }) user_id: number;
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'char', length: 64, select: false }) token_hash: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @Column({ type: 'timestamptz', nullable: true }) last_used_at: Date | null;
}
