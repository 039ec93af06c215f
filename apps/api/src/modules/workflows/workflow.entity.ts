import { Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/user.entity';
import { OwnedEntity } from '../../platform/ownership/owned.entity';

/** A workflow ("pack" in the agent API): stages plus a relational graph (workflow_nodes, workflow_edges). */
@ForeignKey(() => User, ['owner_id'], ['id'], { name: 'workflows_owner_id_fkey', onDelete: 'CASCADE' })
@Index('workflows_owner_slug', { synchronize: false }) // unique on (COALESCE(owner_id, 0), slug) (migration 1732300000001-studio)
@Entity('workflows')
export class Workflow extends OwnedEntity {
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'varchar', length: 64 }) slug: string;
  @Column({ type: 'text', default: '' }) description: string;
  @Column({ type: 'varchar', length: 64 }) domain: string;
  @Column({ type: 'text', array: true }) stages: string[];
  /** Bumped on every graph save; a save naming a stale version is a 409. */
  @Column({ type: 'integer', default: 1 }) version: number;
}
