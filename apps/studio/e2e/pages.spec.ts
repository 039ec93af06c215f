/** Every studio page renders its main landmark without console errors at 1280×800 and 1920×1080. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launch, login, withPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';

describe('pages (browser)', () => {
  let server: RunningServer;
  let browser: Browser;
  before(async () => {
    server = await startServer();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const viewport of [{ width: 1280, height: 800 }, { width: 1920, height: 1080 }]) {
    test(`every page at ${viewport.width}×${viewport.height}`, async (t) => {
      await withPage(
        browser,
        t,
        async ({ page, consoleErrors }) => {
          await login(page, server.url);
          const packs = await (await page.request.get(server.url + '/agent/workflows')).json();
          const pdlc = packs.workflows.find((w: { slug: string }) => w.slug === 'pdlc').pack_id;
          const pages: Array<[string, string]> = [
            ['/studio', 'overview-page'],
            ['/studio/models', 'models-page'],
            ['/studio/skills', 'skills-page'],
            ['/studio/agents', 'agents-page'],
            ['/studio/workflows', 'workflows-page'],
            [`/studio/workflows/${pdlc}`, 'workflow-editor'],
            [`/studio/workflows/${pdlc}/run`, 'run-page'],
            ['/demo', 'demo-page'],
          ];
          for (const [path, testId] of pages) {
            await page.goto(server.url + path);
            const landmark = page.getByTestId(testId);
            await landmark.waitFor();
            const box = await landmark.boundingBox();
            assert.ok(box && box.width > 0 && box.width <= viewport.width, `${path} fits the viewport`);
            const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
            assert.ok(overflow <= 1, `${path} has no horizontal scrollbar (${overflow}px)`);
          }
          assert.deepEqual(consoleErrors, []);
        },
        viewport,
      );
    });
  }

  test('login shows a clear error for wrong credentials; the workspace pages are keyboard reachable', async (t) => {
    await withPage(browser, t, async ({ page }) => {
      await page.goto(server.url + '/studio/login');
      await page.getByTestId('login-username').fill('admin');
      await page.getByTestId('login-password').fill('not-the-password');
      await page.getByTestId('login-submit').click();
      await page.getByTestId('login-error').waitFor();
      await page.getByTestId('login-password').fill('admin-password-1');
      await page.getByTestId('login-password').press('Enter');
      await page.waitForURL((u) => !u.pathname.startsWith('/studio/login'));
      // Tab reaches the main navigation
      let reached = false;
      for (let i = 0; i < 12 && !reached; i++) {
        await page.keyboard.press('Tab');
        reached = await page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'nav-workflows');
      }
      assert.ok(reached, 'the Workflows link is reachable with the keyboard');
      await page.keyboard.press('Enter');
      await page.getByTestId('workflows-page').waitFor();
    });
  });
});

describe('first run (browser)', () => {
  let server: RunningServer;
  let browser: Browser;
  before(async () => {
    server = await startServer({ ADMIN_USERNAME: '', ADMIN_PASSWORD: '' });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('a fresh install opens on the owner-account form; creating it signs in', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      await page.goto(server.url + '/studio');
      await page.getByTestId('login-password-confirm').waitFor();
      assert.match(await page.locator('h1').innerText(), /Create the owner account/);
      await page.getByTestId('login-username').fill('owner');
      await page.getByTestId('login-password').fill('owner-password-1');
      await page.getByTestId('login-password-confirm').fill('owner-password-1');
      await page.getByTestId('login-submit').click();
      await page.getByTestId('overview-page').waitFor();
      assert.equal(new URL(page.url()).pathname, '/studio');
      // signed out again, the same page now offers sign-in: the owner exists
      await page.context().clearCookies();
      await page.goto(server.url + '/studio/login');
      await page.getByTestId('login-form').waitFor();
      await page.waitForLoadState('networkidle');
      assert.match(await page.locator('h1').innerText(), /Sign in/);
      assert.deepEqual(consoleErrors.filter((e) => !/401/.test(e)), []);
    });
  });
});
