/**
 * One place that decides which Postgres we talk to: a server when DATABASE_URL is set,
 * otherwise embedded PGlite under DATA_DIR/pglite. The same migrations run on both.
 */
import { join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { PgliteHandle, pgliteDriver } from './pglite-pool';
import { MIGRATIONS } from './migrations';

export interface DatabaseTarget {
  options: DataSourceOptions;
  kind: 'postgres' | 'pglite';
  pglite?: PgliteHandle;
}

export function databaseTarget(config: AppConfig): DatabaseTarget {
  const common = {
    type: 'postgres' as const,
    migrations: MIGRATIONS,
    migrationsRun: false,
    synchronize: false,
    logging: false,
  };
  if (config.databaseUrl) {
    // Bounded waits (docs/OPERATIONS.md, "Database timeouts"): a database that is down or frozen makes a
    // request fail within these bounds (503 database_unavailable) instead of hanging.
    const extra = {
      connectionTimeoutMillis: config.dbConnectTimeoutMs,
      query_timeout: config.dbQueryTimeoutMs,
      statement_timeout: config.dbStatementTimeoutMs,
    };
    return { kind: 'postgres', options: { ...common, url: config.databaseUrl, poolSize: 10, extra } };
  }
  const handle = new PgliteHandle(join(config.dataDir, 'pglite'));
  return { kind: 'pglite', pglite: handle, options: { ...common, driver: pgliteDriver(handle) } as DataSourceOptions };
}
