import { Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/user.entity';
import { OwnedEntity } from '../../platform/ownership/owned.entity';

export type ProviderKind = 'vendor_a' | 'vendor_b' | 'custom';

@ForeignKey(() => User, ['owner_id'], ['id'], { name: 'models_owner_id_fkey', onDelete: 'CASCADE' })
@Index('models_owner', ['owner_id'])
@Entity('models')
export class Model extends OwnedEntity {
  @Column({ type: 'varchar', length: 200 }) label: string;
  @Column({ type: 'varchar', length: 16 }) provider: ProviderKind;
  @Column({ type: 'varchar', length: 200 }) model_id: string;
  @Column({ type: 'varchar', length: 2048, nullable: true }) api_base: string | null;
  @Column({ type: 'real', nullable: true }) temperature: number | null;
  @Column({ type: 'integer', nullable: true }) max_tokens: number | null;
  /** AES-GCM sealed with a key derived from APP_SECRET; never selected by default, never returned. */
  @Column({ type: 'text', nullable: true, select: false }) api_key_sealed: string | null;
}
