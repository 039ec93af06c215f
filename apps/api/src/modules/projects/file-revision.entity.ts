import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Project } from './project.entity';

export type FileChange = 'added' | 'modified' | 'deleted';

/** Append-only history of every write to a workspace path (content null for a deletion). */
@ForeignKey(() => Project, ['project_id'], ['id'], { name: 'file_revisions_project_id_fkey', onDelete: 'CASCADE' })
@Unique('file_revisions_project_id_path_revision_key', ['project_id', 'path', 'revision'])
// partial unique index (migration 1732300000040-durable-runs): a keyed write lands once per project
@Index('file_revisions_idempotency_key', { synchronize: false })
@Entity('file_revisions')
export class FileRevision {
  @PrimaryGeneratedColumn() id: number;
  @Column({ type: 'integer' }) project_id: number;
  @Column({ type: 'varchar', length: 512 }) path: string;
  @Column({ type: 'integer' }) revision: number;
  @Column({ type: 'varchar', length: 16 }) change: FileChange;
  @Column({ type: 'text', nullable: true }) content: string | null;
  @Column({ type: 'integer', default: 0 }) size: number;
  @Column({ type: 'uuid', nullable: true }) run_id: string | null;
  /** a run's tool call or artifact (`<run id>:<visit>.<call>.<n>`): a resumed run finds its write here */
  @Column({ type: 'varchar', length: 128, nullable: true }) idempotency_key: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}
