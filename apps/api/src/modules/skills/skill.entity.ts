import { Column, Entity } from 'typeorm';
import { OwnedEntity } from '../../platform/ownership/owned.entity';

@Entity('skills')
export class Skill extends OwnedEntity {
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'text', default: '' }) description: string;
  @Column({ type: 'text', default: '' }) prompt_md: string;
  @Column({ type: 'text', array: true, default: () => "'{}'" }) tool_allowlist: string[];
  @Column({ type: 'varchar', length: 512, default: '' }) artifact_hint: string;
}
