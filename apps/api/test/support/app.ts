/**
 * Boots the real application for an API test, on a real database:
 * PGlite in a fresh temp dir by default, or a fresh database on the Postgres server when
 * TEST_DATABASE=postgres (TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres).
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import type { AppConfig } from '../../src/platform/config/app-config';
import { createApp, type CreatedApp } from '../../src/platform/create-app';

export const ADMIN = { username: 'admin', password: 'admin-password-1' };

export interface TestDb {
  dataDir: string;
  databaseUrl: string | null;
  drop(): Promise<void>;
}

/**
 * `server: true` always uses a database on the Postgres server, whatever TEST_DATABASE says: for tests
 * that put a TCP proxy (support/db-proxy.ts) between the app and its database.
 */
export async function createTestDb(opts: { server?: boolean } = {}): Promise<TestDb> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aws-test-'));
  if (process.env.TEST_DATABASE !== 'postgres' && !opts.server) {
    return { dataDir, databaseUrl: null, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const admin = process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `aws_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const c = new PgClient({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const url = new URL(admin);
  url.pathname = '/' + name;
  return {
    dataDir,
    databaseUrl: url.toString(),
    drop: async () => {
      const d = new PgClient({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestApp {
  url: string;
  created: CreatedApp;
  db: TestDb;
  /** Stops the server, keeping the database (for restart tests). */
  stop(): Promise<void>;
  /** Stops the server and drops the database. */
  close(): Promise<void>;
}

export async function startApp(opts: { db?: TestDb; config?: Partial<AppConfig> } = {}): Promise<TestApp> {
  const db = opts.db ?? (await createTestDb());
  const created = await createApp(
    {
      dataDir: db.dataDir,
      databaseUrl: db.databaseUrl,
      appSecret: 'test-secret-not-for-production',
      adminUsername: ADMIN.username,
      adminPassword: ADMIN.password,
      logLevel: process.env.TEST_LOG_LEVEL || 'silent',
      loginLimitPerClient: 1000,
      loginLimitPerUser: 1000,
      host: '127.0.0.1',
      ...opts.config,
    },
    { logger: !!process.env.TEST_LOG_LEVEL },
  );
  await created.app.listen(0, '127.0.0.1');
  const port = (created.app.getHttpServer().address() as AddressInfo).port;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await created.app.close();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    created,
    db,
    stop,
    close: async () => {
      await stop();
      await db.drop();
    },
  };
}
