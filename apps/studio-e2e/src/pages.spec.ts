/**
 * Every studio page renders its main landmark without console errors at 1280×800 and 1920×1080; a
 * wrong password gets a clear error and the workspace pages are reachable with the keyboard.
 */
import { pdlcPackId } from './support/api';
import { expect, test } from './support/fixtures';

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
]) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test(`every page at ${viewport.width}×${viewport.height}`, async ({ page, consoleErrors }) => {
      const pdlc = await pdlcPackId(page.request);
      const pages: Array<[string, string]> = [
        ['/studio', 'overview-page'],
        ['/studio/models', 'models-page'],
        ['/studio/skills', 'skills-page'],
        ['/studio/agents', 'agents-page'],
        ['/studio/mcp-servers', 'mcp-servers-page'],
        ['/studio/workflows', 'workflows-page'],
        [`/studio/workflows/${pdlc}`, 'workflow-editor'],
        [`/studio/workflows/${pdlc}/run`, 'run-page'],
        ['/demo', 'demo-page'],
      ];
      for (const [path, testId] of pages) {
        await test.step(path, async () => {
          await page.goto(path);
          const landmark = page.getByTestId(testId);
          await expect(landmark).toBeVisible();
          const box = await landmark.boundingBox();
          expect(box && box.width > 0 && box.width <= viewport.width, `${path} fits the viewport`).toBe(true);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          expect(overflow, `${path} has no horizontal scrollbar`).toBeLessThanOrEqual(1);
        });
      }
      expect(consoleErrors).toEqual([]);
    });
  });
}

test.describe('signed out', () => {
  test.use({ signedIn: false });

  test('login shows a clear error for wrong credentials; the workspace pages are keyboard reachable', async ({
    page,
    account,
  }) => {
    await page.goto('/studio/login');
    await page.getByTestId('login-username').fill(account.username);
    await page.getByTestId('login-password').fill('not-the-password');
    await page.getByTestId('login-submit').click();
    await expect(page.getByTestId('login-error')).toBeVisible();
    await page.getByTestId('login-password').fill(account.password);
    await page.getByTestId('login-password').press('Enter');
    // the page after sign-in is rendered (navigation and content) before any Tab: tabbing while it
    // was still rendering made this test fail once on CI
    const link = page.getByTestId('nav-workflows');
    await expect(page.getByTestId('overview-page')).toBeVisible();
    await expect(link).toBeVisible();
    // Tab reaches the main navigation's Workflows link (through what comes before it: the skip link,
    // the brand, the other navigation links), in a bounded number of presses
    let presses = 0;
    while (presses < 20 && !(await link.evaluate((el) => el === document.activeElement))) {
      await page.keyboard.press('Tab');
      presses++;
    }
    await expect(link, `the Workflows link is reachable with the keyboard (${presses} Tab presses)`).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('workflows-page')).toBeVisible();
  });
});
