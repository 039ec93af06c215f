/**
 * Typed configuration read once from the environment (README "Configuration" lists every variable).
 * APP_SECRET is generated into DATA_DIR on first boot when unset, so a fresh clone needs no setup.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

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
  version: string;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

function int(v: string | undefined, def: number): number {
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`invalid number in environment: ${v}`);
  return Math.floor(n);
}

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
  const dataDir = resolve(env.DATA_DIR || './data');
  const modelHosts = (env.MODEL_HOSTS || 'any').toLowerCase();
  if (modelHosts !== 'any' && modelHosts !== 'public') {
    throw new Error(`MODEL_HOSTS must be "any" or "public", got "${env.MODEL_HOSTS}"`);
  }
  return {
    port: int(env.PORT, 3000),
    host: env.HOST || '0.0.0.0',
    dataDir,
    databaseUrl: str(env.DATABASE_URL),
    appSecret: loadSecret(dataDir, str(env.APP_SECRET)),
    adminUsername: str(env.ADMIN_USERNAME),
    adminPassword: env.ADMIN_PASSWORD || null,
    llm: {
      provider: str(env.LLM_PROVIDER),
      model: str(env.LLM_MODEL),
      apiBase: str(env.LLM_API_BASE),
      apiKey: str(env.LLM_API_KEY),
    },
    vendorAKey: str(env.VENDOR_A_API_KEY),
    vendorBKey: str(env.VENDOR_B_API_KEY),
    modelHosts,
    logLevel: env.LOG_LEVEL || 'info',
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    allowedOrigins: (env.ALLOWED_ORIGINS || '').split(',').map((s) => s.trim()).filter(Boolean),
    loginLimitPerClient: int(env.LOGIN_LIMIT_PER_CLIENT, 30),
    loginLimitPerUser: int(env.LOGIN_LIMIT_PER_USER, 10),
    loginWindowMs: int(env.LOGIN_WINDOW_MS, 60_000),
    demoLimitPerMinute: int(env.DEMO_LIMIT_PER_MINUTE, 20),
    maxStreamsPerUser: int(env.MAX_STREAMS_PER_USER, 4),
    maxRunsPerUser: int(env.MAX_RUNS_PER_USER, 4),
    maxDemoRunsPerClient: int(env.MAX_DEMO_RUNS_PER_CLIENT, 2),
    turnTimeoutMs: int(env.TURN_TIMEOUT_MS, 600_000),
    heartbeatMs: int(env.SSE_HEARTBEAT_MS, 15_000),
    runRecordWaitMs: int(env.RUN_RECORD_WAIT_MS, 10_000),
    dbConnectTimeoutMs: int(env.DB_CONNECT_TIMEOUT_MS, 5_000),
    dbQueryTimeoutMs: int(env.DB_QUERY_TIMEOUT_MS, 15_000),
    dbStatementTimeoutMs: int(env.DB_STATEMENT_TIMEOUT_MS, 10_000),
    shutdownDeadlineMs: int(env.SHUTDOWN_DEADLINE_MS, 10_000),
    version: readVersion(),
  };
}

function readVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(__dirname, '../../../../../../package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}
