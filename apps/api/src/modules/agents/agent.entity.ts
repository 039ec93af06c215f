import { Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/user.entity';
import { Model } from '../models/model.entity';
import { OwnedEntity } from '../../platform/ownership/owned.entity';

@ForeignKey(() => User, ['owner_id'], ['id'], { name: 'agents_owner_id_fkey', onDelete: 'CASCADE' })
@ForeignKey(() => Model, ['model_id'], ['id'], { name: 'agents_model_id_fkey', onDelete: 'RESTRICT' })
@Index('agents_owner', ['owner_id'])
@Index('agents_model', ['model_id'])
@Index('agents_skill_ids', { synchronize: false }) // GIN on skill_ids (migration 1732300000001-studio)
@Entity('agents')
export class Agent extends OwnedEntity {
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'varchar', length: 200, default: '' }) role: string;
  @Column({ type: 'text', default: '' }) system_prompt: string;
  /** A model record id, or null = the server's default model. */
  @Column({ type: 'integer', nullable: true }) model_id: number | null;
  @Column({ type: 'integer', array: true, default: () => "'{}'" }) skill_ids: number[];
  @Column({ type: 'text', array: true, default: () => "'{}'" }) tool_allowlist: string[];
  /** allowlist names whose calls wait for the user's approval (a subset of tool_allowlist) */
  @Column({ type: 'text', array: true, default: () => "'{}'" }) tools_requiring_approval: string[];
  @Column({ type: 'integer', default: 8 }) max_iterations: number;
}
