/**
 * Browser tests of the studio: @playwright/test driving Debian's Chromium (CHROMIUM_PATH, default
 * /usr/bin/chromium — never a downloaded browser) against the built production server, started once by
 * `webServer` on a free port with a fresh DATA_DIR (its own embedded Postgres, the default path) or,
 * with TEST_DATABASE=postgres, a fresh database on the machine's server (src/support/test-server.mjs).
 * Run through Nx, which builds the server and the studio first: `npx nx run studio-e2e:e2e`
 * (`:postgres` for the machine's server; `-- --grep <title>` for some tests).
 * Reports: `list` on stdout, and Playwright's JSON report to the file named by PW_JSON_OUTPUT when set.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { assertBuilt, CHROMIUM, serverEnv, TEST_SERVER, workspaceRoot } from './src/support/server-env';

if (!existsSync(CHROMIUM)) {
  throw new Error(`no Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium) or set CHROMIUM_PATH`);
}
assertBuilt();

// The config is loaded again in every worker: the port is chosen once, in the runner, and inherited.
if (!process.env.STUDIO_E2E_PORT) {
  const script =
    "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  process.env.STUDIO_E2E_PORT = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim();
}
const port = Number(process.env.STUDIO_E2E_PORT);
if (!Number.isInteger(port) || port <= 0)
  throw new Error(`STUDIO_E2E_PORT must be a port number, got "${process.env.STUDIO_E2E_PORT}"`);
const baseURL = `http://127.0.0.1:${port}`;

const reporter: ReporterDescription[] = [['list']];
if (process.env.PW_JSON_OUTPUT) reporter.push(['json', { outputFile: process.env.PW_JSON_OUTPUT }]);

export default defineConfig({
  testDir: './src',
  outputDir: join(workspaceRoot, 'test-results/studio-e2e'),
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  // a failure is reported as one: no retries that would turn a flaky test into a pass
  retries: 0,
  reporter,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  use: {
    baseURL,
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command: `node ${JSON.stringify(TEST_SERVER)}`,
    cwd: workspaceRoot,
    url: `${baseURL}/health`,
    env: serverEnv(port),
    timeout: 120_000,
    reuseExistingServer: !process.env.CI,
    gracefulShutdown: { signal: 'SIGTERM', timeout: 30_000 },
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
