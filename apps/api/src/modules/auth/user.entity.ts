import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity('users')
export class User {
  @PrimaryGeneratedColumn() id: number;
  @Column({ type: 'varchar', length: 64 }) username: string;
  @Column({ type: 'text', select: false }) password_hash: string;
  @Column({ type: 'boolean', default: false }) is_admin: boolean;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}

/** The identity attached to a request (session or bearer token). */
export interface AuthUser {
  id: number;
  username: string;
  is_admin: boolean;
}
