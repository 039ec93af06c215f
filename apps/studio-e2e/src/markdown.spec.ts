/**
 * Markdown and files (issue 13 item 9): chat replies and Markdown files are rendered (sanitised: raw
 * HTML and javascript: links do nothing); the large file view shows the whole path, revisions with a
 * diff, and downloads the file. At 1280×800 and 1920×1080. A server of its own whose model is the
 * repo's fake LLM, answering every turn with Markdown.
 */
import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { pdlcProject } from './support/api';
import { expect, test } from './support/fixtures';

const PATH = 'docs/research/interviews/2026/summary-of-shared-expense-findings.md';
const REV1 = '# Findings\n\nStudents **forget** who paid.\n\n- rent\n- food\n';
const REV2 = `# Findings\n\nStudents **forget** who paid.\n\n- rent\n- food\n- trips\n\n<img src="x" onerror="window.__pwned = 1">\n<script>window.__pwned = 2</script>\n\n[click me](javascript:window.__pwned=3)\n`;

test.use({
  serverConfig: {
    llm: { text: '## Plan\n\n- **split** the rent\n- track `food`\n\n<b onmouseover="window.__pwned=4">raw</b>' },
  },
});

const pwned = (page: Page) => page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned);

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
]) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test(`(${viewport.width}px) a Markdown file renders safely; the large view has the whole path, a revision diff and download`, async ({
      page,
      consoleErrors,
    }) => {
      const slug = `md-${viewport.width}`;
      const packId = await pdlcProject(page.request, slug);
      for (const content of [REV1, REV2]) {
        expect(
          (await page.request.put(`/studio/api/projects/${slug}/files/${PATH}`, { data: { content } })).status(),
        ).toBe(200);
      }
      await page.goto(`/studio/workflows/${packId}/run?project=${slug}`);
      await page.locator(`[data-testid="file-item"][data-path="${PATH}"]`).click();
      const small = page.getByTestId('file-content');
      await expect(small.locator('h1', { hasText: 'Findings' })).toBeVisible();
      await expect(small.locator('strong', { hasText: 'forget' })).toHaveCount(1);
      await expect(small.locator('li')).toHaveCount(3);
      await expect(small.locator('img, script'), 'raw HTML is not rendered').toHaveCount(0);
      // the side panel shows the whole path
      await expect(page.locator('.file-viewer .file-path')).toHaveText(PATH);

      await page.getByTestId('file-open-large').click();
      const dialog = page.getByTestId('file-dialog');
      await expect(dialog.getByTestId('file-dialog-markdown').locator('h1')).toBeVisible();
      const box = (await dialog.boundingBox())!;
      expect(box.width, 'dialog width').toBeGreaterThanOrEqual(viewport.width * 0.7);
      expect(box.height, 'dialog height').toBeGreaterThanOrEqual(viewport.height * 0.7);
      await expect(dialog.getByTestId('file-dialog-path')).toHaveText(PATH);
      expect((await dialog.getByTestId('file-dialog-path').boundingBox())!.width).toBeGreaterThan(400);
      // a javascript: link does nothing
      const link = dialog.getByTestId('file-dialog-markdown').locator('a', { hasText: 'click me' });
      expect((await link.getAttribute('href')) ?? '').not.toMatch(/^javascript/);
      expect(await pwned(page)).toBeUndefined();

      // revision 1 against the current one
      await dialog.locator('[data-testid="revision-item"][data-revision="1"]').click();
      const diff = dialog.getByTestId('file-diff');
      await expect(diff.locator('[data-kind="added"]', { hasText: '- trips' })).toHaveCount(1);
      await expect(diff.locator('[data-kind="removed"]')).toHaveCount(0);

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        dialog.getByTestId('file-download').click(),
      ]);
      expect(download.suggestedFilename()).toBe('summary-of-shared-expense-findings.md');
      expect(readFileSync(await download.path()).toString()).toBe(REV2);
      await dialog.getByTestId('file-dialog-close').click();
      await expect(dialog).toBeHidden();
      expect(consoleErrors).toEqual([]);
    });
  });
}

test('a chat reply written in Markdown is rendered, not shown as raw text', async ({ page, consoleErrors }) => {
  const packId = await pdlcProject(page.request, 'md-chat');
  await page.goto(`/studio/workflows/${packId}/run?project=md-chat`);
  await page.getByTestId('chat-input').fill('Students lose track of shared expenses');
  await page.getByTestId('chat-send').click();
  const reply = page.locator('[data-testid="chat-message"][data-role="assistant"]').last();
  await expect(reply.locator('.markdown h2', { hasText: 'Plan' })).toBeVisible();
  await expect(reply.locator('.markdown li strong', { hasText: 'split' })).toHaveCount(1);
  await expect(reply.locator('.markdown code', { hasText: 'food' })).toHaveCount(1);
  const text = (await reply.locator('.msg-bubble').first().textContent()) ?? '';
  expect(text, 'no raw Markdown').not.toContain('##');
  expect(text, 'no raw Markdown').not.toContain('**');
  await expect(reply.locator('.markdown b'), 'raw HTML is dropped').toHaveCount(0);
  expect(consoleErrors).toEqual([]);
});
