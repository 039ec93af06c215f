/**
 * A new user's first minutes (issue 13, "Deliver"): the overview offers one primary button that makes
 * a first project and opens it ready for a message; the studio follows a dark system preference (at
 * 1280×800 and 1920×1080). The owner-account form of a fresh install: fresh-install.spec.ts.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './support/fixtures';

/** Relative luminance of a CSS rgb() colour (0 black … 1 white). */
async function luminance(page: Page, selector: string, prop: 'backgroundColor' | 'color'): Promise<number> {
  const css = await page
    .locator(selector)
    .first()
    .evaluate((el, p) => getComputedStyle(el)[p as 'color'], prop);
  const [r, g, b] = (css.match(/[\d.]+/g) ?? [])
    .slice(0, 3)
    .map(Number)
    .map((v) => v / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

test('the overview has one button that starts a first project and opens it (1280px)', async ({
  page,
  consoleErrors,
}) => {
  await page.goto('/studio');
  const panel = page.getByTestId('first-project');
  await expect(panel).toBeVisible();
  await expect(panel.locator('.btn-primary')).toHaveCount(1);
  await page.getByTestId('first-project-start').click();
  await expect(page).toHaveURL(/\/run\?project=my-first-project/);
  await expect(page.getByTestId('stage-discover')).toHaveAttribute('data-state', 'current');
  await page.getByTestId('chat-input').fill('A shared shopping list for flatmates');
  await page.getByTestId('chat-send').click();
  await expect(page.getByTestId('gate-banner')).toBeVisible();
  await page.goto('/studio');
  await expect(page.getByTestId('count-workflows')).toBeVisible();
  await expect(page.getByTestId('first-project'), 'shown only until there is a project').toHaveCount(0);
  expect(consoleErrors).toEqual([]);
});

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
]) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport, colorScheme: 'dark' });

    test(`a dark system preference gives dark pages and a dark canvas (${viewport.width}px)`, async ({
      page,
      consoleErrors,
    }, testInfo) => {
      await page.goto('/studio/workflows');
      await expect(page.getByTestId('workflows-table')).toBeVisible();
      expect(await luminance(page, 'body', 'backgroundColor'), 'dark page').toBeLessThan(0.15);
      expect(await luminance(page, 'body', 'color'), 'light text').toBeGreaterThan(0.6);
      const list = await (await page.request.get('/studio/api/workflows')).json();
      const pdlc = list.find((w: { slug: string }) => w.slug === 'pdlc');
      await page.goto(`/studio/workflows/${pdlc.id}`);
      await expect(page.getByTestId('flow-node').first()).toBeVisible();
      await expect(page.getByTestId('readonly-banner')).toBeVisible();
      expect(await luminance(page, '[data-testid="canvas"]', 'backgroundColor'), 'dark canvas').toBeLessThan(0.15);
      expect(await luminance(page, '[data-testid="flow-node"]', 'backgroundColor'), 'dark nodes').toBeLessThan(0.15);
      expect(await luminance(page, '.flow-node-key', 'color'), 'readable node titles').toBeGreaterThan(0.6);
      expect(
        await luminance(page, '[data-testid="flow-node"][data-node-type="gate"]', 'backgroundColor'),
        'dark gate nodes',
      ).toBeLessThan(0.15);
      expect(await luminance(page, '[data-testid="readonly-banner"]', 'color'), 'readable banner').toBeGreaterThan(0.5);
      await page.screenshot({ path: testInfo.outputPath(`editor-dark-${viewport.width}.png`) });
      expect(consoleErrors).toEqual([]);
    });
  });
}
