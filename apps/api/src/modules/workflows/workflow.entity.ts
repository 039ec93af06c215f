import { Column, Entity } from 'typeorm';
import { OwnedEntity } from '../../platform/ownership/owned.entity';

/** A workflow ("pack" in the agent API): stages plus a relational graph (workflow_nodes, workflow_edges). */
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
