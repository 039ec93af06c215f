import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A project's chat history: user and assistant messages, with the assistant's tool calls. */
@Entity('messages')
export class Message {
  @PrimaryGeneratedColumn() id: number;
  @Column({ type: 'integer' }) project_id: number;
  @Column({ type: 'uuid', nullable: true }) run_id: string | null;
  @Column({ type: 'varchar', length: 16 }) role: 'user' | 'assistant';
  @Column({ type: 'text' }) content: string;
  @Column({ type: 'varchar', length: 64, nullable: true }) stage: string | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) node_key: string | null;
  @Column({ type: 'integer', nullable: true }) agent_id: number | null;
  @Column({ type: 'jsonb', default: () => "'[]'" }) tool_calls: Array<{ name: string; arguments: unknown; ok: boolean }>;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
}
