import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * MCP tool servers (docs/decisions/mcp.md): owner-scoped records whose tools agents call as
 * `server/tool`; a name is unique per owner. Header values are sealed like model API keys.
 */
export class McpServers1732300000050 implements MigrationInterface {
  name = 'McpServers1732300000050';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mcp_servers (
        id serial PRIMARY KEY,
        owner_id integer CONSTRAINT mcp_servers_owner_id_fkey REFERENCES users(id) ON DELETE CASCADE,
        is_system boolean NOT NULL DEFAULT false,
        name varchar(40) NOT NULL,
        url varchar(2048) NOT NULL,
        header_names text[] NOT NULL DEFAULT '{}',
        headers_sealed text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX mcp_servers_owner_name ON mcp_servers (owner_id, name);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE mcp_servers`);
  }
}
