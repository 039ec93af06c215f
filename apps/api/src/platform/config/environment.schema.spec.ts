import assert from 'node:assert/strict';
import { ConfigError, validateEnvironment } from './environment.schema';

const refused = (env: NodeJS.ProcessEnv, pattern: RegExp) =>
  assert.throws(
    () => validateEnvironment(env),
    (err: unknown) => err instanceof ConfigError && pattern.test(err.message) && !err.message.includes('\n'),
  );

describe('validateEnvironment', () => {
  test('an empty environment is valid: every variable has a default', () => {
    assert.deepEqual({ ...validateEnvironment({}) }, {});
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
    assert.equal(e.PORT, 8080);
    assert.equal(e.TURN_TIMEOUT_MS, 1000);
    assert.equal(e.LOG_LEVEL, 'debug');
    assert.equal(e.MODEL_HOSTS, 'public');
    assert.equal(e.TRUST_PROXY, 'true');
    assert.equal(e.HOST, undefined);
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
  });

  test('every bad variable is named at once', () => {
    refused({ PORT: 'abc', LOG_LEVEL: 'loud' }, /PORT .*; LOG_LEVEL /);
  });

  test('a value that may be a secret is never quoted', () => {
    assert.throws(
      () => validateEnvironment({ DATABASE_URL: 'mysql://user:hunter2@db/x', LLM_API_BASE: 'ftp://user:hunter3@h' }),
      (err: unknown) =>
        err instanceof ConfigError &&
        /DATABASE_URL must be a postgres:\/\/ URL/.test(err.message) &&
        !/hunter/.test(err.message),
    );
  });

  test('the URLs people use are accepted', () => {
    validateEnvironment({
      DATABASE_URL: 'postgres://u:p@localhost:5432/db',
      LLM_API_BASE: 'http://127.0.0.1:11434/v1',
    });
    validateEnvironment({ DATABASE_URL: 'postgresql://db/x', LLM_API_BASE: 'http://ollama:11434/v1' });
  });
});
