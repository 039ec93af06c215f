/**
 * Typed configuration read once from the environment (README "Configuration" lists every variable),
 * validated by the schema in environment.schema.ts: a bad value stops the boot. APP_SECRET is generated into DATA_DIR on first boot when unset, so a fresh clone needs no setup.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { validateEnvironment } from './environment.schema';
import { REPO_ROOT } from '../paths';

export type ModelHostsMode = 'any' | 'public';

export interface AppConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  appSecret: string;
  adminUsername: string | null;
  adminPassword: string | null;
  llm: { provider: string | null; model: string | null; apiBase: string | null; apiKey: string | null };
  vendorAKey: string | null;
  vendorBKey: string | null;
  modelHosts: ModelHostsMode;
  logLevel: string;
  trustProxy: boolean;
  allowedOrigins: string[];
  loginLimitPerClient: number;
  loginLimitPerUser: number;
  loginWindowMs: number;
  demoLimitPerMinute: number;
  maxStreamsPerUser: number;
  maxRunsPerUser: number;
  maxDemoRunsPerClient: number;
  turnTimeoutMs: number;
  heartbeatMs: number;
  /** how long the end of a turn retries its write before the stream ends with `outcome_not_stored` */
  runRecordWaitMs: number;
  /** Postgres server only: connection-acquire timeout, client-side query timeout, server statement_timeout */
  dbConnectTimeoutMs: number;
  dbQueryTimeoutMs: number;
  dbStatementTimeoutMs: number;
  /** SIGTERM: how long open turns get to end before they are stopped and the process exits */
  shutdownDeadlineMs: number;
  /** runs left in flight by a crash: `auto` resumes them at boot, `off` marks them interrupted */
  resumeInterrupted: 'auto' | 'off';
  /** MCP tool servers: the timeout of each request (connect, tool list, tool call) */
  mcpToolTimeoutMs: number;
  /** a bearer token for Prometheus scrapers on /metrics (admins need none) */
  metricsToken: string | null;
  /**
   * What this process does (docs/decisions/cluster.md): `all` serves the API and runs turns (one
   * process, the default); `api` serves the API and queues turns; `worker` runs queued turns.
   */
  role: 'all' | 'api' | 'worker';
  /** cluster mode only: turns a worker runs at once, its heartbeat, and the silence after which it counts as dead */
  workerConcurrency: number;
  workerHeartbeatMs: number;
  workerDeadAfterMs: number;
  version: string;
}

/** Cluster mode: API replicas and workers share the database; turns travel through the queue. */
export const isCluster = (c: Pick<AppConfig, 'role'>) => c.role !== 'all';

export const APP_CONFIG = Symbol('APP_CONFIG');

function str(v: string | undefined): string | null {
  return v === undefined || v.trim() === '' ? null : v.trim();
}

function loadSecret(dataDir: string, fromEnv: string | null): string {
  if (fromEnv) return fromEnv;
  const file = join(dataDir, 'app-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const e = validateEnvironment(env);
  const dataDir = resolve(e.DATA_DIR ?? './data');
  return {
    port: e.PORT ?? 3000,
    host: e.HOST ?? '0.0.0.0',
    dataDir,
    databaseUrl: str(e.DATABASE_URL),
    appSecret: loadSecret(dataDir, str(e.APP_SECRET)),
    adminUsername: str(e.ADMIN_USERNAME),
    adminPassword: e.ADMIN_PASSWORD ?? null,
    llm: {
      provider: str(e.LLM_PROVIDER),
      model: str(e.LLM_MODEL),
      apiBase: str(e.LLM_API_BASE),
      apiKey: str(e.LLM_API_KEY),
    },
    vendorAKey: str(e.VENDOR_A_API_KEY),
    vendorBKey: str(e.VENDOR_B_API_KEY),
    modelHosts: (e.MODEL_HOSTS ?? 'any') as ModelHostsMode,
    logLevel: e.LOG_LEVEL ?? 'info',
    trustProxy: e.TRUST_PROXY === '1' || e.TRUST_PROXY === 'true',
    allowedOrigins: (e.ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    loginLimitPerClient: e.LOGIN_LIMIT_PER_CLIENT ?? 30,
    loginLimitPerUser: e.LOGIN_LIMIT_PER_USER ?? 10,
    loginWindowMs: e.LOGIN_WINDOW_MS ?? 60_000,
    demoLimitPerMinute: e.DEMO_LIMIT_PER_MINUTE ?? 20,
    maxStreamsPerUser: e.MAX_STREAMS_PER_USER ?? 4,
    maxRunsPerUser: e.MAX_RUNS_PER_USER ?? 4,
    maxDemoRunsPerClient: e.MAX_DEMO_RUNS_PER_CLIENT ?? 2,
    turnTimeoutMs: e.TURN_TIMEOUT_MS ?? 600_000,
    heartbeatMs: e.SSE_HEARTBEAT_MS ?? 15_000,
    runRecordWaitMs: e.RUN_RECORD_WAIT_MS ?? 10_000,
    dbConnectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS ?? 5_000,
    dbQueryTimeoutMs: e.DB_QUERY_TIMEOUT_MS ?? 15_000,
    dbStatementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS ?? 10_000,
    shutdownDeadlineMs: e.SHUTDOWN_DEADLINE_MS ?? 10_000,
    resumeInterrupted: e.RESUME_INTERRUPTED === 'off' ? 'off' : 'auto',
    mcpToolTimeoutMs: e.MCP_TOOL_TIMEOUT_MS ?? 30_000,
    metricsToken: str(e.METRICS_TOKEN),
    role: (e.ROLE ?? 'all') as AppConfig['role'],
    workerConcurrency: e.WORKER_CONCURRENCY ?? 8,
    workerHeartbeatMs: e.WORKER_HEARTBEAT_MS ?? 5_000,
    workerDeadAfterMs: e.WORKER_DEAD_AFTER_MS ?? 15_000,
    version: readVersion(),
  };
}

function readVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
