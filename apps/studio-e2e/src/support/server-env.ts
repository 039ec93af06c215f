/**
 * What the browser tests run against: Debian's Chromium (never a downloaded browser) and the built
 * production server (apps/api/dist/src/main.js) started by ./test-server.mjs with the environment below.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const workspaceRoot = join(__dirname, '../../../..');

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** The admin the default server is started with; tests sign in as users this admin creates. */
export const ADMIN = { username: 'admin', password: 'admin-password-1' };

export interface Credentials {
  username: string;
  password: string;
}

/** The launcher that starts one server on a fresh DATA_DIR (and database) and cleans up after it. */
export const TEST_SERVER = join(__dirname, 'test-server.mjs');

export function assertBuilt(): void {
  for (const [file, how] of [
    [join(workspaceRoot, 'apps/api/dist/src/main.js'), 'npx nx run api:build'],
    [join(workspaceRoot, 'apps/studio/dist/index.html'), 'npx nx run studio:build'],
  ] as const) {
    if (!existsSync(file))
      throw new Error(`${file} is missing: build it first (${how}), or run \`npx nx run studio-e2e:e2e\`, which does`);
  }
}

/**
 * The server's environment: an explicit value for everything a developer's shell might set, so a run
 * does not depend on it — the offline provider (no LLM_*), admin credentials, generous rate limits
 * (every test signs in), warnings only in the log. `overrides` wins (a fake LLM, no admin).
 */
export function serverEnv(port: number, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'warn',
    LOGIN_LIMIT_PER_CLIENT: '1000',
    LOGIN_LIMIT_PER_USER: '1000',
    DEMO_LIMIT_PER_MINUTE: '1000',
    LLM_PROVIDER: '',
    LLM_MODEL: '',
    LLM_API_BASE: '',
    LLM_API_KEY: '',
    ...overrides,
  };
}
