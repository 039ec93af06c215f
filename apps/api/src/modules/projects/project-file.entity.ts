import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** The current content of one workspace file. Every write also appends a FileRevision. */
@Entity('project_files')
export class ProjectFile {
  @PrimaryGeneratedColumn() id: number;
  @Column({ type: 'integer' }) project_id: number;
  @Column({ type: 'varchar', length: 512 }) path: string;
  @Column({ type: 'text' }) content: string;
  @Column({ type: 'integer' }) size: number;
  @Column({ type: 'integer' }) revision: number;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
}
