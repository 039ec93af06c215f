import { Column, Entity, ForeignKey, Index } from 'typeorm';
import { User } from '../auth/user.entity';
import { OwnedEntity } from '../../platform/ownership/owned.entity';

@ForeignKey(() => User, ['owner_id'], ['id'], { name: 'mcp_servers_owner_id_fkey', onDelete: 'CASCADE' })
@Index('mcp_servers_owner_name', ['owner_id', 'name'], { unique: true })
@Entity('mcp_servers')
export class McpServer extends OwnedEntity {
  /** the `server` of `server/tool` in allowlists */
  @Column({ type: 'varchar', length: 40 }) name: string;
  /** the Streamable HTTP endpoint, checked against MODEL_HOSTS */
  @Column({ type: 'varchar', length: 2048 }) url: string;
  /** names of the headers sent with every request (their values are sealed) */
  @Column({ type: 'text', array: true, default: () => "'{}'" }) header_names: string[];
  /** AES-GCM sealed JSON object of header values; never selected by default, never returned. */
  @Column({ type: 'text', nullable: true, select: false }) headers_sealed: string | null;
}
