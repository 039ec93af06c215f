import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Runs (one per turn) with every event they emitted, and the projects' chat history. */
export class Runs1732300000003 implements MigrationInterface {
  name = 'Runs1732300000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE runs (
        id uuid PRIMARY KEY,
        owner_id integer REFERENCES users(id) ON DELETE CASCADE,
        project_id integer REFERENCES projects(id) ON DELETE CASCADE,
        workflow_id integer REFERENCES workflows(id) ON DELETE SET NULL,
        mode varchar(16) NOT NULL,
        state varchar(16) NOT NULL,
        stage varchar(64),
        node_key varchar(64),
        reply text NOT NULL DEFAULT '',
        usage jsonb NOT NULL DEFAULT '{"input_tokens":0,"output_tokens":0}',
        error jsonb,
        last_seq integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      );
      CREATE INDEX runs_project ON runs (project_id, created_at);
      CREATE INDEX runs_state ON runs (state) WHERE state = 'running';
      CREATE TABLE run_events (
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq integer NOT NULL,
        event varchar(32) NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE messages (
        id serial PRIMARY KEY,
        project_id integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        run_id uuid REFERENCES runs(id) ON DELETE SET NULL,
        role varchar(16) NOT NULL,
        content text NOT NULL,
        stage varchar(64),
        node_key varchar(64),
        agent_id integer,
        tool_calls jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX messages_project ON messages (project_id, id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE messages; DROP TABLE run_events; DROP TABLE runs;`);
  }
}
