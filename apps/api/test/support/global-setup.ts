/**
 * jest globalSetup of the API integration suite: ONE embedded Postgres server (the class the service
 * itself runs) for the whole run; each test file creates its own database on it (support/app.ts).
 * With TEST_DATABASE=postgres nothing is started: the tests use the server at TEST_PG_URL. A server
 * already given in TEST_EMBEDDED_PG_URL is reused. Stopped by global-teardown.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedPostgres } from '../../src/platform/database/embedded-postgres';

export interface EmbeddedForTests {
  server: EmbeddedPostgres;
  dir: string;
}

/** Shared with global-teardown.ts: jest runs both in the same (parent) process. */
export const EMBEDDED_KEY = Symbol.for('aws.test.embeddedPostgres');

export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_DATABASE === 'postgres' || process.env.TEST_EMBEDDED_PG_URL) return;
  const dir = mkdtempSync(join(tmpdir(), 'aws-test-pg-'));
  const server = new EmbeddedPostgres({ dir: join(dir, 'postgres') });
  // Workers are started after globalSetup and inherit this environment.
  process.env.TEST_EMBEDDED_PG_URL = await server.start();
  (globalThis as Record<symbol, EmbeddedForTests>)[EMBEDDED_KEY] = { server, dir };
}
