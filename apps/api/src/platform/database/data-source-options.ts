/**
 * One place that decides which Postgres we talk to: a server when DATABASE_URL is set, otherwise the
 * embedded Postgres server under DATA_DIR/postgres, started here (before migrations) and stopped when
 * the Nest app closes (docs/decisions/database.md). The same migrations and queries run on both.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { EmbeddedPostgres } from './embedded-postgres';
import { MIGRATIONS } from './migrations';

export interface DatabaseTarget {
  options: DataSourceOptions;
  kind: 'postgres' | 'embedded';
  /** The embedded server, when this service owns it. */
  embedded?: EmbeddedPostgres;
}

export async function openDatabase(config: AppConfig, onLog?: (line: string) => void): Promise<DatabaseTarget> {
  const common = {
    type: 'postgres' as const,
    migrations: MIGRATIONS,
    migrationsRun: false,
    synchronize: false,
    logging: false,
    poolSize: 10,
  };
  // Bounded waits (docs/OPERATIONS.md, "Database timeouts"): a database that is down or frozen makes a
  // request fail within these bounds (503 database_unavailable) instead of hanging — on a server and on
  // the embedded one alike.
  const extra = {
    connectionTimeoutMillis: config.dbConnectTimeoutMs,
    query_timeout: config.dbQueryTimeoutMs,
    statement_timeout: config.dbStatementTimeoutMs,
  };
  if (config.databaseUrl) return { kind: 'postgres', options: { ...common, url: config.databaseUrl, extra } };
  if (existsSync(join(config.dataDir, 'pglite'))) {
    onLog?.(
      `${join(config.dataDir, 'pglite')} holds data of the former PGlite default, which is no longer read (docs/OPERATIONS.md)`,
    );
  }
  const embedded = new EmbeddedPostgres({ dir: join(config.dataDir, 'postgres'), onLog });
  const url = await embedded.start();
  return { kind: 'embedded', embedded, options: { ...common, url, extra } };
}
