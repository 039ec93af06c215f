/**
 * Layout at 1280×800 and 1920×1080 (issue 13 item 10): the editor toolbar shows a long workflow title
 * whole (the actions take a second row when both do not fit), the demo's conversation scrolls inside its
 * box instead of sliding under the composer, and toasts never cover a button.
 */
import type { Page } from '@playwright/test';
import { cloneOfPdlc, pdlcProject } from './support/api';
import { expect, test } from './support/fixtures';

const LONG_NAME = 'Customer onboarding product lifecycle for the enterprise tier';

/** Buttons and links whose centre, as the browser hit-tests it, lands on a toast. */
function coveredByToasts(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('button, a[href], textarea')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        if (!r.width || !r.height) return false;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !!hit?.closest('.toasts');
      })
      .map((el) => el.textContent?.trim() || el.getAttribute('aria-label') || el.tagName),
  );
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
]) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test(`the editor toolbar shows the whole workflow title (${viewport.width}px)`, async ({
      page,
      consoleErrors,
    }, testInfo) => {
      const id = await cloneOfPdlc(page.request, LONG_NAME);
      await page.goto(`/studio/workflows/${id}`);
      const title = page.getByTestId('editor-title');
      await expect(title).toHaveText(LONG_NAME);
      await expect(page.getByTestId('graph-version')).toBeVisible();
      await expect(page.getByTestId('dirty-indicator')).toBeVisible();
      const fits = await title.evaluate((el) => el.scrollWidth <= el.clientWidth);
      expect(fits, 'the title is not cut short').toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.screenshot({ path: testInfo.outputPath(`editor-title-${viewport.width}.png`) });
      expect(consoleErrors).toEqual([]);
    });

    test(`the demo's messages stay above the composer (${viewport.width}px)`, async ({ page, consoleErrors }) => {
      await page.goto('/demo');
      for (let i = 0; i < 3; i++) {
        await page.getByRole('textbox', { name: /message/i }).fill(`Message number ${i}`);
        await page.keyboard.press('Enter');
        await expect(page.getByTestId('demo-reply')).toHaveCount(i + 1);
      }
      const log = (await page.getByTestId('demo-log').boundingBox())!;
      const composer = (await page.locator('.demo-composer').boundingBox())!;
      expect(log.y + log.height, 'the conversation ends above the composer').toBeLessThanOrEqual(composer.y);
      expect(composer.y + composer.height, 'the composer is on screen').toBeLessThanOrEqual(viewport.height);
      // the newest reply is scrolled into view inside the conversation
      const last = (await page.getByTestId('demo-reply').last().boundingBox())!;
      expect(last.y + last.height).toBeLessThanOrEqual(log.y + log.height + 1);
      expect(consoleErrors).toEqual([]);
    });

    test(`a toast covers no button (${viewport.width}px)`, async ({ page, consoleErrors }) => {
      const slug = `toast-${viewport.width}`;
      const packId = await pdlcProject(page.request, slug);
      await page.goto(`/studio/workflows/${packId}/run?project=${slug}`);
      await page.getByTestId('chat-input').fill('A message typed before the toast');
      await page.getByTestId('project-rename').click();
      await page.getByTestId('project-rename-name').fill('Renamed for the toast');
      await page.getByTestId('project-rename-save').click();
      await expect(page.getByTestId('toasts')).toContainText('Renamed to');
      expect(await coveredByToasts(page)).toEqual([]);
      // the button under where toasts used to sit takes a click while the toast shows
      await page.getByTestId('chat-send').click();
      await expect(
        page
          .locator('[data-testid="chat-message"][data-role="user"]')
          .filter({ hasText: 'A message typed before the toast' }),
      ).toHaveCount(1);
      expect(consoleErrors).toEqual([]);
    });
  });
}
