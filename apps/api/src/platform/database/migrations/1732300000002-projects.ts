import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Projects with their workflow state, workspace files and file revisions. */
export class Projects1732300000002 implements MigrationInterface {
  name = 'Projects1732300000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE projects (
        id serial PRIMARY KEY,
        owner_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        slug varchar(64) NOT NULL,
        name varchar(200) NOT NULL,
        pack_id integer REFERENCES workflows(id) ON DELETE RESTRICT,
        domain varchar(64),
        stage varchar(64),
        awaiting_gate jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (owner_id, slug)
      );
      CREATE INDEX projects_pack ON projects (pack_id);
      CREATE TABLE project_files (
        id serial PRIMARY KEY,
        project_id integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        path varchar(512) NOT NULL,
        content text NOT NULL,
        size integer NOT NULL,
        revision integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (project_id, path)
      );
      CREATE TABLE file_revisions (
        id serial PRIMARY KEY,
        project_id integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        path varchar(512) NOT NULL,
        revision integer NOT NULL,
        change varchar(16) NOT NULL,
        content text,
        size integer NOT NULL DEFAULT 0,
        run_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (project_id, path, revision)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE file_revisions; DROP TABLE project_files; DROP TABLE projects;`);
  }
}
