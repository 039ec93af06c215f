import { ConfigError, validateEnvironment } from './environment.schema';

/** The ConfigError an environment is refused with (fails when it is accepted). */
function errorOf(env: NodeJS.ProcessEnv): ConfigError {
  try {
    validateEnvironment(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('the environment was accepted');
}

const refused = (env: NodeJS.ProcessEnv, pattern: RegExp) => {
  const { message } = errorOf(env);
  expect(message).toMatch(pattern);
  expect(message).not.toContain('\n');
};

describe('validateEnvironment', () => {
  test('an empty environment is valid: every variable has a default', () => {
    expect({ ...validateEnvironment({}) }).toEqual({});
  });

  test('numbers are parsed, enumerations lower-cased, empty values ignored', () => {
    const e = validateEnvironment({
      PORT: '8080',
      TURN_TIMEOUT_MS: ' 1000 ',
      LOG_LEVEL: 'DEBUG',
      MODEL_HOSTS: 'Public',
      HOST: '',
      TRUST_PROXY: 'TRUE',
    });
    expect(e.PORT).toBe(8080);
    expect(e.TURN_TIMEOUT_MS).toBe(1000);
    expect(e.LOG_LEVEL).toBe('debug');
    expect(e.MODEL_HOSTS).toBe('public');
    expect(e.TRUST_PROXY).toBe('true');
    expect(e.HOST).toBe(undefined);
  });

  test('a bad value names the variable, on one line', () => {
    refused({ PORT: 'abc' }, /^invalid environment: PORT must be a whole number .*"abc"/);
    refused({ PORT: '70000' }, /PORT must be at most 65535/);
    refused(
      { LOG_LEVEL: 'loud' },
      /LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "loud"/,
    );
    refused({ TURN_TIMEOUT_MS: '10s' }, /TURN_TIMEOUT_MS must be a whole number/);
    refused({ SHUTDOWN_DEADLINE_MS: '-1' }, /SHUTDOWN_DEADLINE_MS must be a whole number/);
    refused({ DB_QUERY_TIMEOUT_MS: '1.5' }, /DB_QUERY_TIMEOUT_MS must be a whole number/);
    refused({ MODEL_HOSTS: 'private' }, /MODEL_HOSTS must be "any" or "public"/);
    refused({ TRUST_PROXY: 'yes' }, /TRUST_PROXY must be/);
    refused({ LLM_PROVIDER: 'vendor_c' }, /LLM_PROVIDER must be one of offline, vendor_a, vendor_b, custom/);
    refused({ LLM_API_BASE: 'localhost:8080' }, /LLM_API_BASE must be an http\(s\) URL/);
    refused({ METRICS_TOKEN: 'short' }, /^invalid environment: METRICS_TOKEN must be at least 16 characters$/);
    refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
    refused(
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' },
      /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http\(s\) URL/,
    );
    refused(
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json \(no gRPC exporter here\), got "grpc"/,
    );
    refused(
      { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http' },
      /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http\/protobuf/,
    );
  });

  test('telemetry variables: a long METRICS_TOKEN and OTLP endpoints on http(s) hosts are accepted', () => {
    const e = validateEnvironment({
      METRICS_TOKEN: 'scrape-token-0123456789',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.internal/v1/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'HTTP/JSON',
    });
    expect(e.OTEL_EXPORTER_OTLP_PROTOCOL).toBe('http/json');
    expect(e.METRICS_TOKEN).toBe('scrape-token-0123456789');
    expect(e.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://127.0.0.1:4318');
  });

  test('every bad variable is named at once', () => {
    refused({ PORT: 'abc', LOG_LEVEL: 'loud' }, /PORT .*; LOG_LEVEL /);
  });

  test('a value that may be a secret is never quoted', () => {
    const { message } = errorOf({ DATABASE_URL: 'mysql://user:hunter2@db/x', LLM_API_BASE: 'ftp://user:hunter3@h' });
    expect(message).toMatch(/DATABASE_URL must be a postgres:\/\/ URL/);
    expect(message).not.toMatch(/hunter/);
  });

  test('the URLs people use are accepted', () => {
    validateEnvironment({
      DATABASE_URL: 'postgres://u:p@localhost:5432/db',
      LLM_API_BASE: 'http://127.0.0.1:11434/v1',
    });
    validateEnvironment({ DATABASE_URL: 'postgresql://db/x', LLM_API_BASE: 'http://ollama:11434/v1' });
  });

  test('cluster mode: ROLE is all, api or worker; api and worker need a shared Postgres and APP_SECRET', () => {
    const db = 'postgres://u@127.0.0.1:5432/x';
    refused({ ROLE: 'scheduler' }, /^invalid environment: ROLE must be "all", "api" or "worker", got "scheduler"$/);
    refused({ ROLE: 'api', APP_SECRET: 's' }, /ROLE=api needs DATABASE_URL/);
    refused({ ROLE: 'worker', DATABASE_URL: db }, /ROLE=worker needs APP_SECRET, the same in every process/);
    expect(validateEnvironment({ ROLE: 'Worker', DATABASE_URL: db, APP_SECRET: 's' }).ROLE).toBe('worker');
    expect(validateEnvironment({ ROLE: 'all' }).ROLE).toBe('all');
    refused({ WORKER_CONCURRENCY: '0' }, /WORKER_CONCURRENCY must be at least 1/);
    refused({ WORKER_HEARTBEAT_MS: '10' }, /WORKER_HEARTBEAT_MS must be at least 100/);
  });
});
