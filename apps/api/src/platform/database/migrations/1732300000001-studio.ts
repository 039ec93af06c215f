import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Models, skills, agents, workflows (packs) and their relational graph. */
export class Studio1732300000001 implements MigrationInterface {
  name = 'Studio1732300000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE models (
        id serial PRIMARY KEY,
        owner_id integer REFERENCES users(id) ON DELETE CASCADE,
        is_system boolean NOT NULL DEFAULT false,
        label varchar(200) NOT NULL,
        provider varchar(16) NOT NULL,
        model_id varchar(200) NOT NULL,
        api_base varchar(2048),
        temperature real,
        max_tokens integer,
        api_key_sealed text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX models_owner ON models (owner_id);
      CREATE TABLE skills (
        id serial PRIMARY KEY,
        owner_id integer REFERENCES users(id) ON DELETE CASCADE,
        is_system boolean NOT NULL DEFAULT false,
        name varchar(200) NOT NULL,
        description text NOT NULL DEFAULT '',
        prompt_md text NOT NULL DEFAULT '',
        tool_allowlist text[] NOT NULL DEFAULT '{}',
        artifact_hint varchar(512) NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX skills_owner ON skills (owner_id);
      CREATE TABLE agents (
        id serial PRIMARY KEY,
        owner_id integer REFERENCES users(id) ON DELETE CASCADE,
        is_system boolean NOT NULL DEFAULT false,
        name varchar(200) NOT NULL,
        role varchar(200) NOT NULL DEFAULT '',
        system_prompt text NOT NULL DEFAULT '',
        model_id integer REFERENCES models(id) ON DELETE RESTRICT,
        skill_ids integer[] NOT NULL DEFAULT '{}',
        tool_allowlist text[] NOT NULL DEFAULT '{}',
        max_iterations integer NOT NULL DEFAULT 8,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX agents_owner ON agents (owner_id);
      CREATE INDEX agents_model ON agents (model_id);
      CREATE INDEX agents_skill_ids ON agents USING gin (skill_ids);
      CREATE TABLE workflows (
        id serial PRIMARY KEY,
        owner_id integer REFERENCES users(id) ON DELETE CASCADE,
        is_system boolean NOT NULL DEFAULT false,
        name varchar(200) NOT NULL,
        slug varchar(64) NOT NULL,
        description text NOT NULL DEFAULT '',
        domain varchar(64) NOT NULL,
        stages text[] NOT NULL,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX workflows_owner_slug ON workflows (coalesce(owner_id, 0), slug);
      CREATE TABLE workflow_nodes (
        id serial PRIMARY KEY,
        workflow_id integer NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
        ord integer NOT NULL,
        node_key varchar(64) NOT NULL,
        type varchar(16) NOT NULL,
        agent_id integer REFERENCES agents(id) ON DELETE RESTRICT,
        stage_label varchar(64),
        config jsonb NOT NULL DEFAULT '{}',
        position_x double precision NOT NULL DEFAULT 0,
        position_y double precision NOT NULL DEFAULT 0,
        UNIQUE (workflow_id, node_key)
      );
      CREATE INDEX workflow_nodes_agent ON workflow_nodes (agent_id);
      CREATE TABLE workflow_edges (
        id serial PRIMARY KEY,
        workflow_id integer NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
        ord integer NOT NULL,
        from_node varchar(64) NOT NULL,
        to_node varchar(64) NOT NULL,
        condition text
      );
      CREATE INDEX workflow_edges_workflow ON workflow_edges (workflow_id, ord);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `DROP TABLE workflow_edges; DROP TABLE workflow_nodes; DROP TABLE workflows; DROP TABLE agents; DROP TABLE skills; DROP TABLE models;`,
    );
  }
}
