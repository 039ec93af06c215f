/**
 * The fixtures every browser test uses:
 * - every test starts signed in as a fresh user the admin made for it alone (`test.use({ signedIn: false })`
 *   for a signed-out browser); projects, workflows, models and agents are per owner, so no test sees
 *   another's records and tests run in any order or in parallel. `account` is one more fresh user, not
 *   signed in, for tests that sign in through the form.
 * - `consoleErrors`: every console error and uncaught page error of the test's browser context; tests
 *   assert it is empty (minus the HTTP errors they provoke on purpose).
 * - `serverConfig` (a worker option, `test.use({ serverConfig })`): a server of the worker's own with
 *   another configuration — no admin account yet, or the repo's fake LLM (apps/api/test/support/fake-llm.ts,
 *   run in the worker) as the default model. `baseURL` then points at it. Without it, tests share the
 *   server Playwright's webServer started (playwright.config.ts).
 */
import { randomBytes } from 'node:crypto';
import { expect, test as base, type PlaywrightWorkerArgs } from '@playwright/test';
import { FakeLlm, type FakeTurn } from '../../../api/test/support/fake-llm';
import { startExtraServer } from './extra-server';
import { ADMIN, type Credentials } from './server-env';

export interface ServerConfig {
  /** server environment overrides, e.g. `{ ADMIN_USERNAME: '', ADMIN_PASSWORD: '' }` for a first run */
  env?: Record<string, string>;
  /** every turn of the server's default model is answered by the fake LLM with this */
  llm?: FakeTurn;
}

interface WorkerFixtures {
  serverConfig: ServerConfig | null;
  ownServerUrl: string | null;
}

interface TestFixtures {
  signedIn: boolean;
  account: Credentials;
  session: void;
  consoleErrors: string[];
}

/** A user made by the admin, with a name no other test uses. */
async function newUser(
  playwright: PlaywrightWorkerArgs['playwright'],
  baseURL: string | undefined,
  workerIndex: number,
): Promise<Credentials> {
  const admin = await playwright.request.newContext({ baseURL });
  const user = {
    username: `u${workerIndex}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`,
    password: 'user-password-1',
  };
  try {
    expect((await admin.post('/auth/login', { data: ADMIN })).status(), 'the admin signs in').toBe(200);
    const created = await admin.post('/studio/api/users', { data: user });
    expect(created.status(), await created.text()).toBe(201);
  } finally {
    await admin.dispose();
  }
  return user;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  serverConfig: [null, { scope: 'worker', option: true }],

  ownServerUrl: [
    async ({ serverConfig }, use) => {
      if (!serverConfig) return use(null);
      const fake = serverConfig.llm ? await FakeLlm.start({ defaultTurn: serverConfig.llm }) : null;
      try {
        const llmEnv: Record<string, string> = fake
          ? { LLM_PROVIDER: 'custom', LLM_MODEL: 'fake-model', LLM_API_BASE: fake.openaiBase }
          : {};
        const server = await startExtraServer({ ...llmEnv, ...serverConfig.env });
        try {
          await use(server.url);
        } finally {
          await server.stop();
        }
      } finally {
        await fake?.close();
      }
    },
    { scope: 'worker', timeout: 120_000 },
  ],

  baseURL: async ({ ownServerUrl, baseURL }, use) => use(ownServerUrl ?? baseURL),

  consoleErrors: async ({ context }, use) => {
    const errors: string[] = [];
    context.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    context.on('weberror', (e) => errors.push(String(e.error())));
    await use(errors);
  },

  signedIn: [true, { option: true }],

  account: async ({ playwright, baseURL }, use, testInfo) =>
    use(await newUser(playwright, baseURL, testInfo.workerIndex)),

  session: [
    async ({ signedIn, playwright, baseURL, context }, use, testInfo) => {
      if (signedIn) {
        const user = await newUser(playwright, baseURL, testInfo.workerIndex);
        expect((await context.request.post('/auth/login', { data: user })).status(), 'the new user signs in').toBe(200);
      }
      await use();
    },
    { auto: true },
  ],
});

export { expect };
