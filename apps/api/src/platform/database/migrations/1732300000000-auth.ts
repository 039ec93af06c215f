import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Auth1732300000000 implements MigrationInterface {
  name = 'Auth1732300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id serial PRIMARY KEY,
        username varchar(64) NOT NULL,
        password_hash text NOT NULL,
        is_admin boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX users_username_lower ON users (lower(username));
      CREATE TABLE sessions (
        sid varchar(128) PRIMARY KEY,
        sess jsonb NOT NULL,
        user_id integer REFERENCES users(id) ON DELETE CASCADE,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX sessions_expires_at ON sessions (expires_at);
      CREATE INDEX sessions_user_id ON sessions (user_id);
      CREATE TABLE access_tokens (
        id serial PRIMARY KEY,
        user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name varchar(200) NOT NULL,
        token_hash char(64) NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz
      );
      CREATE INDEX access_tokens_user_id ON access_tokens (user_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE access_tokens; DROP TABLE sessions; DROP TABLE users;`);
  }
}
