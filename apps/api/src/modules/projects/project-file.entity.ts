import {
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { Project } from './project.entity';

/** The current content of one workspace file. Every write also appends a FileRevision. */
@ForeignKey(() => Project, ['project_id'], ['id'], { name: 'project_files_project_id_fkey', onDelete: 'CASCADE' })
@Unique('project_files_project_id_path_key', ['project_id', 'path'])
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
