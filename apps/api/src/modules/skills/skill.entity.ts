import { Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/user.entity';
import { OwnedEntity } from '../../platform/ownership/owned.entity';

@ForeignKey(() => User, ['owner_id'], ['id'], { name: 'skills_owner_id_fkey', onDelete: 'CASCADE' })
@Index('skills_owner', ['owner_id'])
@Entity('skills')
export class Skill extends OwnedEntity {
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'text', default: '' }) description: string;
  @Column({ type: 'text', default: '' }) prompt_md: string;
  @Column({ type: 'text', array: true, default: () => "'{}'" }) tool_allowlist: string[];
  /** allowlist names whose calls wait for the user's approval (a subset of tool_allowlist) */
  @Column({ type: 'text', array: true, default: () => "'{}'" }) tools_requiring_approval: string[];
  @Column({ type: 'varchar', length: 512, default: '' }) artifact_hint: string;
}
