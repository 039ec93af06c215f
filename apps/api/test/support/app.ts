/**
 * Boots the real application for an API test, on a real database: a fresh database per test file on
 * the embedded Postgres server that `npm test` starts once for the run (TEST_EMBEDDED_PG_URL), or on
 * the machine's Postgres server when TEST_DATABASE=postgres (TEST_PG_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres). A file run on its own (no runner) starts its own
 * embedded server, as the service does.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import type { AppConfig } from '../../src/platform/config/app-config';
import { createApp, type CreatedApp } from '../../src/platform/create-app';
import { EmbeddedPostgres } from '../../src/platform/database/embedded-postgres';

export const ADMIN = { username: 'admin', password: 'admin-password-1' };

export interface TestDb {
  dataDir: string;
  databaseUrl: string | null;
  drop(): Promise<void>;
}

let ownServer: Promise<string> | null = null;

/** The admin URL of the server the test databases live on. */
export function testServerUrl(): Promise<string> {
  if (process.env.TEST_DATABASE === 'postgres')
    return Promise.resolve(process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  if (process.env.TEST_EMBEDDED_PG_URL) return Promise.resolve(process.env.TEST_EMBEDDED_PG_URL);
  if (!ownServer) {
    const dir = mkdtempSync(join(tmpdir(), 'aws-test-pg-'));
    const server = new EmbeddedPostgres({ dir: join(dir, 'postgres') });
    ownServer = server.start();
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return ownServer;
}

export async function createTestDb(): Promise<TestDb> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aws-test-'));
  const admin = await testServerUrl();
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
