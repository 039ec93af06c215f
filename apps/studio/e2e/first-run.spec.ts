/**
 * A new user's first minutes (issue 13, "Deliver"): the overview offers one primary button that makes
 * a first project and opens it ready for a message; the studio follows a dark system preference.
 * At 1280×800 and 1920×1080.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launch, login, withPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';

const shots = join(__dirname, '../../../test-results/e2e');

/** Relative luminance of a CSS rgb() colour (0 black … 1 white). */
async function luminance(page: Page, selector: string, prop: 'backgroundColor' | 'color'): Promise<number> {
  const css = await page.locator(selector).first().evaluate((el, p) => getComputedStyle(el)[p as 'color'], prop);
  const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number).map((v) => v / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

describe('first run and dark mode (browser)', () => {
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

  test('the overview has one button that starts a first project and opens it (1280px)', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      await login(page, server.url);
      await page.goto(server.url + '/studio');
      const panel = page.getByTestId('first-project');
      await panel.waitFor();
      assert.equal(await panel.locator('.btn-primary').count(), 1);
      await page.getByTestId('first-project-start').click();
      await page.waitForURL(/\/run\?project=my-first-project/);
      await page.locator('[data-testid="stage-discover"][data-state="current"]').waitFor();
      await page.getByTestId('chat-input').fill('A shared shopping list for flatmates');
      await page.getByTestId('chat-send').click();
      await page.getByTestId('gate-banner').waitFor();
      await page.goto(server.url + '/studio');
      await page.getByTestId('count-workflows').waitFor();
      assert.equal(await page.getByTestId('first-project').count(), 0, 'shown only until there is a project');
      assert.deepEqual(consoleErrors, []);
    });
  });

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 1920, height: 1080 },
  ]) {
    test(`a dark system preference gives dark pages and a dark canvas (${viewport.width}px)`, async (t) => {
      await withPage(
        browser,
        t,
        async ({ page, consoleErrors }) => {
          await page.emulateMedia({ colorScheme: 'dark' });
          await login(page, server.url);
          await page.goto(server.url + '/studio/workflows');
          await page.getByTestId('workflows-table').waitFor();
          assert.ok((await luminance(page, 'body', 'backgroundColor')) < 0.15, 'dark page');
          assert.ok((await luminance(page, 'body', 'color')) > 0.6, 'light text');
          const list = await (await page.request.get(server.url + '/studio/api/workflows')).json();
          const pdlc = list.find((w: { slug: string }) => w.slug === 'pdlc');
          await page.goto(`${server.url}/studio/workflows/${pdlc.id}`);
          await page.locator('[data-testid="flow-node"]').first().waitFor();
          assert.ok((await luminance(page, '[data-testid="canvas"]', 'backgroundColor')) < 0.15, 'dark canvas');
          assert.ok((await luminance(page, '[data-testid="flow-node"]', 'backgroundColor')) < 0.15, 'dark nodes');
          assert.ok((await luminance(page, '.flow-node-key', 'color')) > 0.6, 'readable node titles');
          assert.ok((await luminance(page, '[data-testid="flow-node"][data-node-type="gate"]', 'backgroundColor')) < 0.15, 'dark gate nodes');
          assert.ok((await luminance(page, '[data-testid="readonly-banner"]', 'color')) > 0.5, 'readable banner');
          mkdirSync(shots, { recursive: true });
          await page.screenshot({ path: join(shots, `editor-dark-${viewport.width}.png`) });
          assert.deepEqual(consoleErrors, []);
        },
        viewport,
      );
    });
  }
});
