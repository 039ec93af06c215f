/**
 * Markdown and files (issue 13 item 9): chat replies and Markdown files are rendered (sanitised: raw
 * HTML and javascript: links do nothing); the large file view shows the whole path, revisions with a
 * diff, and downloads the file. At 1280×800 and 1920×1080.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launch, login, withPage } from './support/browser';
import { startFakeLlm, type FakeLlmProcess } from './support/fake-llm';
import { startServer, type RunningServer } from './support/server';

const PATH = 'docs/research/interviews/2026/summary-of-shared-expense-findings.md';
const REV1 = '# Findings\n\nStudents **forget** who paid.\n\n- rent\n- food\n';
const REV2 = `# Findings\n\nStudents **forget** who paid.\n\n- rent\n- food\n- trips\n\n<img src="x" onerror="window.__pwned = 1">\n<script>window.__pwned = 2</script>\n\n[click me](javascript:window.__pwned=3)\n`;

describe('markdown and the file view (browser)', () => {
  let server: RunningServer;
  let fake: FakeLlmProcess;
  let browser: Browser;
  before(async () => {
    // the server's model answers every turn with Markdown
    fake = await startFakeLlm({ text: '## Plan\n\n- **split** the rent\n- track `food`\n\n<b onmouseover="window.__pwned=4">raw</b>' });
    server = await startServer({ LLM_PROVIDER: 'custom', LLM_MODEL: 'fake-md', LLM_API_BASE: fake.openaiBase });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await fake?.stop();
  });

  async function project(page: Page, slug: string): Promise<number> {
    await login(page, server.url);
    const packs = await (await page.request.get(server.url + '/agent/workflows')).json();
    const pdlc = packs.workflows.find((w: { slug: string }) => w.slug === 'pdlc');
    assert.equal((await page.request.put(`${server.url}/agent/workflows/${slug}`, { data: { domain: 'pdlc', stage: 'discover', pack_id: pdlc.pack_id } })).status(), 200);
    return pdlc.pack_id;
  }

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 1920, height: 1080 },
  ]) {
    test(`(${viewport.width}px) a Markdown file renders safely; the large view has the whole path, a revision diff and download`, async (t) => {
      await withPage(
        browser,
        t,
        async ({ page, consoleErrors }) => {
          const slug = `md-${viewport.width}`;
          const packId = await project(page, slug);
          for (const content of [REV1, REV2]) {
            assert.equal((await page.request.put(`${server.url}/studio/api/projects/${slug}/files/${PATH}`, { data: { content } })).status(), 200);
          }
          await page.goto(`${server.url}/studio/workflows/${packId}/run?project=${slug}`);
          await page.locator(`[data-testid="file-item"][data-path="${PATH}"]`).click();
          const small = page.getByTestId('file-content');
          await small.locator('h1', { hasText: 'Findings' }).waitFor();
          assert.equal(await small.locator('strong', { hasText: 'forget' }).count(), 1);
          assert.equal(await small.locator('li').count(), 3);
          assert.equal(await small.locator('img, script').count(), 0, 'raw HTML is not rendered');
          // the side panel shows the whole path
          assert.equal((await page.locator('.file-viewer .file-path').textContent())?.trim(), PATH);

          await page.getByTestId('file-open-large').click();
          const dialog = page.getByTestId('file-dialog');
          await dialog.getByTestId('file-dialog-markdown').locator('h1').waitFor();
          const box = (await dialog.boundingBox())!;
          assert.ok(box.width >= viewport.width * 0.7 && box.height >= viewport.height * 0.7, `dialog ${box.width}×${box.height}`);
          assert.equal((await dialog.getByTestId('file-dialog-path').textContent())?.trim(), PATH);
          const pathBox = (await dialog.getByTestId('file-dialog-path').boundingBox())!;
          assert.ok(pathBox.width > 400);
          // a javascript: link does nothing
          const link = dialog.getByTestId('file-dialog-markdown').locator('a', { hasText: 'click me' });
          assert.ok(!((await link.getAttribute('href')) ?? '').startsWith('javascript'));
          assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);

          // revision 1 against the current one
          await dialog.locator('[data-testid="revision-item"][data-revision="1"]').click();
          const diff = dialog.getByTestId('file-diff');
          await diff.waitFor();
          assert.equal(await diff.locator('[data-kind="added"]', { hasText: '- trips' }).count(), 1);
          assert.equal(await diff.locator('[data-kind="removed"]').count(), 0);

          const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByTestId('file-download').click()]);
          assert.equal(download.suggestedFilename(), 'summary-of-shared-expense-findings.md');
          assert.equal(readFileSync(await download.path()).toString(), REV2);
          await dialog.getByTestId('file-dialog-close').click();
          await dialog.waitFor({ state: 'hidden' });
          assert.deepEqual(consoleErrors, []);
        },
        viewport,
      );
    });
  }

  test('a chat reply written in Markdown is rendered, not shown as raw text', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      const packId = await project(page, 'md-chat');
      await page.goto(`${server.url}/studio/workflows/${packId}/run?project=md-chat`);
      await page.getByTestId('chat-input').fill('Students lose track of shared expenses');
      await page.getByTestId('chat-send').click();
      const reply = page.locator('[data-testid="chat-message"][data-role="assistant"]').last();
      await reply.locator('.markdown h2', { hasText: 'Plan' }).waitFor();
      assert.equal(await reply.locator('.markdown li strong', { hasText: 'split' }).count(), 1);
      assert.equal(await reply.locator('.markdown code', { hasText: 'food' }).count(), 1);
      const text = (await reply.locator('.msg-bubble').first().textContent()) ?? '';
      assert.ok(!text.includes('##') && !text.includes('**'), `no raw Markdown: ${text}`);
      assert.equal(await reply.locator('.markdown b').count(), 0, 'raw HTML is dropped');
      assert.deepEqual(consoleErrors, []);
    });
  });
});
