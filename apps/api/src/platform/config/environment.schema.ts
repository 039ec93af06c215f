/**
 * The environment the server reads, as one schema (README "Configuration" documents each variable).
 * `validateEnvironment` checks it at boot: a bad value stops the server with one line naming the
 * variable, instead of a NaN timeout or an unknown log level surfacing later.
 */
import { plainToInstance, Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MinLength,
  Max,
  Min,
  validateSync,
  type ValidationError,
} from 'class-validator';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export const LLM_PROVIDERS = ['offline', 'vendor_a', 'vendor_b', 'custom'] as const;

/** a whole number of at least 0 — "abc", "1.5" and "-1" are refused, not rounded or defaulted */
const Count = () => (target: object, key: string) => {
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value,
  )(target, key);
  IsInt({ message: `${key} must be a whole number (0 or more), got "$value"` })(target, key);
  Min(0)(target, key);
};

const OTLP_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
/** The OTLP encodings this build exports (platform/telemetry/tracing-sdk.ts); http/protobuf is OTLP's default. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'];

const lower = Transform(({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.trim().toLowerCase() : value,
);

export class EnvironmentVariables {
  @IsOptional() @Count() @Max(65535, { message: 'PORT must be at most 65535, got "$value"' }) PORT?: number;
  @IsOptional() @IsString() HOST?: string;
  @IsOptional() @IsString() DATA_DIR?: string;
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;
  @IsOptional() @IsString() APP_SECRET?: string;
  @IsOptional() @IsString() ADMIN_USERNAME?: string;
  @IsOptional() @IsString() ADMIN_PASSWORD?: string;
  @IsOptional()
  @lower
  @IsIn(LLM_PROVIDERS, { message: `LLM_PROVIDER must be one of ${LLM_PROVIDERS.join(', ')}, got "$value"` })
  LLM_PROVIDER?: string;
  @IsOptional() @IsString() LLM_MODEL?: string;
  @IsOptional()
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'LLM_API_BASE must be an http(s) URL' },
  )
  LLM_API_BASE?: string;
  @IsOptional() @IsString() LLM_API_KEY?: string;
  @IsOptional() @IsString() VENDOR_A_API_KEY?: string;
  @IsOptional() @IsString() VENDOR_B_API_KEY?: string;
  @IsOptional()
  @lower
  @IsIn(['any', 'public'], { message: 'MODEL_HOSTS must be "any" or "public", got "$value"' })
  MODEL_HOSTS?: string;
  @IsOptional()
  @lower
  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "$value"` })
  LOG_LEVEL?: string;
  @IsOptional()
  @lower
  @IsIn(['0', '1', 'false', 'true'], { message: 'TRUST_PROXY must be 1, 0, true or false, got "$value"' })
  TRUST_PROXY?: string;
  @IsOptional() @IsString() ALLOWED_ORIGINS?: string;
  @IsOptional() @Count() LOGIN_LIMIT_PER_CLIENT?: number;
  @IsOptional() @Count() LOGIN_LIMIT_PER_USER?: number;
  @IsOptional() @Count() LOGIN_WINDOW_MS?: number;
  @IsOptional() @Count() DEMO_LIMIT_PER_MINUTE?: number;
  @IsOptional() @Count() MAX_STREAMS_PER_USER?: number;
  @IsOptional() @Count() MAX_RUNS_PER_USER?: number;
  @IsOptional() @Count() MAX_DEMO_RUNS_PER_CLIENT?: number;
  @IsOptional() @Count() TURN_TIMEOUT_MS?: number;
  @IsOptional() @Count() SSE_HEARTBEAT_MS?: number;
  @IsOptional() @Count() RUN_RECORD_WAIT_MS?: number;
  @IsOptional() @Count() DB_CONNECT_TIMEOUT_MS?: number;
  @IsOptional() @Count() DB_QUERY_TIMEOUT_MS?: number;
  @IsOptional() @Count() DB_STATEMENT_TIMEOUT_MS?: number;
  @IsOptional() @Count() SHUTDOWN_DEADLINE_MS?: number;
  @IsOptional()
  @lower
  @IsIn(['auto', 'off'], { message: 'RESUME_INTERRUPTED must be "auto" or "off", got "$value"' })
  RESUME_INTERRUPTED?: string;
  @IsOptional() @Count() MCP_TOOL_TIMEOUT_MS?: number;
  @IsOptional()
  @lower
  @IsIn(['all', 'api', 'worker'], { message: 'ROLE must be "all", "api" or "worker", got "$value"' })
  ROLE?: string;
  @IsOptional()
  @Count()
  @Min(1, { message: 'WORKER_CONCURRENCY must be at least 1, got "$value"' })
  WORKER_CONCURRENCY?: number;
  @IsOptional()
  @Count()
  @Min(100, { message: 'WORKER_HEARTBEAT_MS must be at least 100, got "$value"' })
  WORKER_HEARTBEAT_MS?: number;
  @IsOptional()
  @Count()
  @Min(300, { message: 'WORKER_DEAD_AFTER_MS must be at least 300, got "$value"' })
  WORKER_DEAD_AFTER_MS?: number;
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  METRICS_TOKEN?: string;
  // read by the OpenTelemetry SDK itself (platform/telemetry/tracing-sdk.ts); checked here so a typo stops the boot
  @IsOptional()
  @IsUrl(OTLP_URL, { message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  @IsOptional()
  @IsUrl(OTLP_URL, { message: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http(s) URL' })
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  @IsOptional()
  @lower
  @IsIn(OTLP_PROTOCOLS, {
    message: `OTEL_EXPORTER_OTLP_PROTOCOL must be ${OTLP_PROTOCOLS.join(' or ')} (no gRPC exporter here), got "$value"`,
  })
  OTEL_EXPORTER_OTLP_PROTOCOL?: string;
  @IsOptional()
  @lower
  @IsIn(OTLP_PROTOCOLS, {
    message: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be ${OTLP_PROTOCOLS.join(' or ')} (no gRPC exporter here), got "$value"`,
  })
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: string;
}

/** A configuration error: its message is the whole story (main.ts prints it without a stack). */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * The variables of the schema, parsed (numbers as numbers, enumerations lower-cased); an empty value
 * counts as unset. Throws ConfigError naming every bad variable (values may be secrets: messages quote
 * only numbers and enumerations).
 */
export function validateEnvironment(env: NodeJS.ProcessEnv): EnvironmentVariables {
  const raw: Record<string, string> = {};
  for (const key of KEYS) {
    const value = env[key];
    if (value !== undefined && value.trim() !== '') raw[key] = value;
  }
  const parsed = plainToInstance(EnvironmentVariables, raw);
  const errors = validateSync(parsed);
  if (errors.length) throw new ConfigError(`invalid environment: ${errors.map(describe).join('; ')}`);
  // cluster mode (docs/decisions/cluster.md): every process shares one Postgres server
  if (parsed.ROLE && parsed.ROLE !== 'all' && !parsed.DATABASE_URL)
    throw new ConfigError(
      `invalid environment: ROLE=${parsed.ROLE} needs DATABASE_URL (a Postgres server shared by every process)`,
    );
  // every process must sign sessions and open sealed keys alike: one generated per DATA_DIR would not do
  if (parsed.ROLE && parsed.ROLE !== 'all' && !parsed.APP_SECRET)
    throw new ConfigError(`invalid environment: ROLE=${parsed.ROLE} needs APP_SECRET, the same in every process`);
  return parsed;
}

function describe(error: ValidationError): string {
  const constraints = error.constraints ?? {};
  // "abc" breaks both "whole number" and "at most 65535": the type is the one to tell
  if (constraints.isInt) return constraints.isInt;
  const messages = Object.values(constraints);
  return messages.find((m) => m.startsWith(error.property)) ?? `${error.property}: ${messages[0]}`;
}

const KEYS: (keyof EnvironmentVariables)[] = [
  'PORT',
  'HOST',
  'DATA_DIR',
  'DATABASE_URL',
  'APP_SECRET',
  'ADMIN_USERNAME',
  'ADMIN_PASSWORD',
  'LLM_PROVIDER',
  'LLM_MODEL',
  'LLM_API_BASE',
  'LLM_API_KEY',
  'VENDOR_A_API_KEY',
  'VENDOR_B_API_KEY',
  'MODEL_HOSTS',
  'LOG_LEVEL',
  'TRUST_PROXY',
  'ALLOWED_ORIGINS',
  'LOGIN_LIMIT_PER_CLIENT',
  'LOGIN_LIMIT_PER_USER',
  'LOGIN_WINDOW_MS',
  'DEMO_LIMIT_PER_MINUTE',
  'MAX_STREAMS_PER_USER',
  'MAX_RUNS_PER_USER',
  'MAX_DEMO_RUNS_PER_CLIENT',
  'TURN_TIMEOUT_MS',
  'SSE_HEARTBEAT_MS',
  'RUN_RECORD_WAIT_MS',
  'DB_CONNECT_TIMEOUT_MS',
  'DB_QUERY_TIMEOUT_MS',
  'DB_STATEMENT_TIMEOUT_MS',
  'SHUTDOWN_DEADLINE_MS',
  'RESUME_INTERRUPTED',
  'MCP_TOOL_TIMEOUT_MS',
  'ROLE',
  'WORKER_CONCURRENCY',
  'WORKER_HEARTBEAT_MS',
  'WORKER_DEAD_AFTER_MS',
  'METRICS_TOKEN',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
];
