import { Column, CreateDateColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** Columns every user-defined record carries (docs/API.md): system records have owner_id null. */
export abstract class OwnedEntity {
  @PrimaryGeneratedColumn() id: number;
  @Column({ type: 'integer', nullable: true }) owner_id: number | null;
  @Column({ type: 'boolean', default: false }) is_system: boolean;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}
