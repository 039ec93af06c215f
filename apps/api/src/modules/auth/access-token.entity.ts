import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('access_tokens')
export class AccessToken {
  @PrimaryGeneratedColumn() id: number;
  @Column({ type: 'integer' }) user_id: number;
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'char', length: 64, select: false }) token_hash: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @Column({ type: 'timestamptz', nullable: true }) last_used_at: Date | null;
}
