import { Column, Entity } from 'typeorm';
import { OwnedEntity } from '../../platform/ownership/owned.entity';

@Entity('agents')
export class Agent extends OwnedEntity {
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'varchar', length: 200, default: '' }) role: string;
  @Column({ type: 'text', default: '' }) system_prompt: string;
  /** A model record id, or null = the server's default model. */
  @Column({ type: 'integer', nullable: true }) model_id: number | null;
  @Column({ type: 'integer', array: true, default: () => "'{}'" }) skill_ids: number[];
  @Column({ type: 'text', array: true, default: () => "'{}'" }) tool_allowlist: string[];
  @Column({ type: 'integer', default: 8 }) max_iterations: number;
}
