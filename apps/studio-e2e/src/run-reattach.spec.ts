/**
 * The run page and a turn in flight (issue 13 item 1): a reload mid-turn re-attaches to the live run
 * (its events replayed with last_event_id, then followed live), shows Stop instead of Send, and Stop
 * still cancels it; after Stop the prompt shows once and history keeps the stopped reply. A server of
 * its own whose model is the repo's fake LLM, streaming slowly.
 */
import type { Page } from '@playwright/test';
import { pdlcProject } from './support/api';
import { expect, test } from './support/fixtures';

// 6000 tokens 50 ms apart: a turn of ~5 min, longer than a test may last (every test presses Stop), so
// the turn is still running whenever a test expects it to, however slow the machine
test.use({ serverConfig: { llm: { tokens: 6000, tokenIntervalMs: 50 } } });

async function openProject(page: Page, slug: string): Promise<string> {
  const packId = await pdlcProject(page.request, slug);
  const url = `/studio/workflows/${packId}/run?project=${slug}`;
  await page.goto(url);
  await expect(page.getByTestId('chat-input')).toBeVisible();
  return url;
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
]) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test(`a reload mid-turn re-attaches: live text, Stop instead of Send, Stop cancels (${viewport.width}px)`, async ({
      page,
      consoleErrors,
    }, testInfo) => {
      const slug = `reload-${viewport.width}`;
      await openProject(page, slug);
      await page.getByTestId('chat-input').fill('Students lose track of shared expenses');
      await page.getByTestId('chat-send').click();
      await expect(page.getByTestId('assistant-text').first()).toBeVisible();

      await page.reload();
      // the page finds the running turn and follows it: Stop is offered, Send is not
      await expect(page.locator('[data-testid="live-turn"][data-status="running"]')).toBeVisible();
      await expect(page.getByTestId('chat-stop')).toBeVisible();
      await expect(page.getByTestId('chat-send')).toHaveCount(0);
      await expect(page.getByTestId('advance-stage')).toBeDisabled();
      // replayed from the first event, then live: the text keeps growing
      const text = page.getByTestId('assistant-text').first();
      const first = (await text.textContent()) ?? '';
      await expect
        .poll(async () => ((await text.textContent()) ?? '').length, { message: 'more streamed text' })
        .toBeGreaterThan(first.length);
      // the prompt shows once (from history), not again in the live turn
      await expect(
        page.getByTestId('chat-message').filter({ hasText: 'Students lose track of shared expenses' }),
      ).toHaveCount(1);
      await page.screenshot({ path: testInfo.outputPath(`run-after-reload-${viewport.width}.png`) });

      await page.getByTestId('chat-stop').click();
      // the stopped turn ends in history, marked (the live copy goes once history holds it)
      await expect(page.locator('[data-testid="chat-message"][data-state="stopped"]')).toBeVisible();
      await expect(page.getByTestId('chat-send')).toBeVisible();
      await expect
        .poll(async () => (await (await page.request.get(`/agent/workflows/${slug}`)).json()).running_run_id, {
          message: 'the run ends',
        })
        .toBeNull();
      expect(consoleErrors).toEqual([]);
    });
  });
}

test('a second tab on the same project follows the running turn instead of offering Send', async ({
  page,
  context,
  consoleErrors,
}) => {
  const url = await openProject(page, 'two-tabs');
  await page.getByTestId('chat-input').fill('First tab message');
  await page.getByTestId('chat-send').click();
  await expect(page.getByTestId('assistant-text').first()).toBeVisible();
  const other = await context.newPage();
  await other.goto(url);
  await expect(other.getByTestId('chat-stop')).toBeVisible();
  await expect(other.getByTestId('assistant-text').first()).toBeVisible();
  await expect(other.getByTestId('chat-send')).toHaveCount(0);
  // back to the first tab (a click in a tab in the background may never be delivered)
  await page.bringToFront();
  await page.getByTestId('chat-stop').click();
  // the other tab sees the run end (its replayed stream closes) and offers Send again
  await expect(other.getByTestId('chat-send')).toBeVisible({ timeout: 20_000 });
  expect(consoleErrors).toEqual([]);
});

test('after Stop the prompt shows once and history keeps the partial reply, marked stopped', async ({
  page,
  consoleErrors,
}, testInfo) => {
  await openProject(page, 'stopped-once');
  const prompt = 'Stop me half way';
  await page.getByTestId('chat-input').fill(prompt);
  await page.getByTestId('chat-send').click();
  await expect(page.getByTestId('assistant-text').first()).toBeVisible();
  await page.getByTestId('chat-stop').click();
  // the stopped turn ends in history (partial reply kept, marked), and the live copy is gone
  const stopped = page.locator('[data-testid="chat-message"][data-role="assistant"][data-state="stopped"]');
  await expect(stopped).toBeVisible();
  await expect(stopped.locator('.badge')).toHaveText('stopped');
  await expect(stopped.locator('.msg-bubble')).not.toBeEmpty();
  await expect(page.getByTestId('chat-message').filter({ hasText: prompt })).toHaveCount(1);
  await expect(page.getByTestId('assistant-text')).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath('stopped-turn-in-history.png') });
  await page.reload();
  await expect(stopped).toBeVisible();
  await expect(page.getByTestId('chat-message').filter({ hasText: prompt })).toHaveCount(1);
  expect(consoleErrors).toEqual([]);
});
