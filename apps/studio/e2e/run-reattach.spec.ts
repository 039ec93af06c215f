/**
 * The run page and a turn in flight (issue 13 item 1): a reload mid-turn re-attaches to the live run
 * (its events replayed with last_event_id, then followed live), shows Stop instead of Send, and Stop
 * still cancels it. The server's default model is the repo's fake LLM, streaming slowly.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launch, login, withPage } from './support/browser';
import { startFakeLlm, type FakeLlmProcess } from './support/fake-llm';
import { startServer, type RunningServer } from './support/server';

const shots = join(__dirname, '../../../test-results/e2e');

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, limitMs = 20_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('run page: a turn in flight (browser)', () => {
  let server: RunningServer;
  let fake: FakeLlmProcess;
  let browser: Browser;
  let pdlcId: number;
  before(async () => {
    // 600 tokens 50 ms apart: a turn of ~30 s, far longer than the test needs before it presses Stop
    fake = await startFakeLlm({ tokens: 600, intervalMs: 50 });
    server = await startServer({ LLM_PROVIDER: 'custom', LLM_MODEL: 'fake-slow', LLM_API_BASE: fake.openaiBase });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await fake?.stop();
  });

  async function openProject(page: Page, slug: string) {
    await login(page, server.url);
    const packs = await (await page.request.get(server.url + '/agent/workflows')).json();
    pdlcId = packs.workflows.find((w: { slug: string }) => w.slug === 'pdlc').pack_id;
    const bound = await page.request.put(`${server.url}/agent/workflows/${slug}`, { data: { domain: 'pdlc', stage: 'discover', pack_id: pdlcId } });
    assert.equal(bound.status(), 200);
    await page.goto(`${server.url}/studio/workflows/${pdlcId}/run?project=${slug}`);
    await page.getByTestId('chat-input').waitFor();
  }

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 1920, height: 1080 },
  ]) {
    test(`a reload mid-turn re-attaches: live text, Stop instead of Send, Stop cancels (${viewport.width}px)`, async (t) => {
      await withPage(
        browser,
        t,
        async ({ page, consoleErrors }) => {
          const slug = `reload-${viewport.width}`;
          await openProject(page, slug);
          await page.getByTestId('chat-input').fill('Students lose track of shared expenses');
          await page.getByTestId('chat-send').click();
          await page.getByTestId('assistant-text').first().waitFor();

          await page.reload();
          // the page finds the running turn and follows it: Stop is offered, Send is not
          await page.locator('[data-testid="live-turn"][data-status="running"]').waitFor();
          await page.getByTestId('chat-stop').waitFor();
          assert.equal(await page.getByTestId('chat-send').count(), 0);
          assert.equal(await page.getByTestId('advance-stage').isDisabled(), true);
          // replayed from the first event, then live: the text keeps growing
          const first = (await page.getByTestId('assistant-text').first().textContent()) ?? '';
          await until('more streamed text', async () => ((await page.getByTestId('assistant-text').first().textContent()) ?? '').length > first.length);
          // the prompt shows once (from history), not again in the live turn
          assert.equal(await page.getByTestId('chat-message').filter({ hasText: 'Students lose track of shared expenses' }).count(), 1);
          mkdirSync(shots, { recursive: true });
          await page.screenshot({ path: join(shots, `run-after-reload-${viewport.width}.png`) });

          await page.getByTestId('chat-stop').click();
          await page.locator('[data-testid="live-turn"][data-status="stopped"]').waitFor();
          await page.getByTestId('chat-send').waitFor();
          await until('the run to end', async () => {
            const st = await (await page.request.get(`${server.url}/agent/workflows/${slug}`)).json();
            return st.running_run_id === null;
          });
          assert.deepEqual(consoleErrors, []);
        },
        viewport,
      );
    });
  }

  test('a second tab on the same project follows the running turn instead of offering Send', async (t) => {
    await withPage(browser, t, async ({ page, context, consoleErrors }) => {
      await openProject(page, 'two-tabs');
      await page.getByTestId('chat-input').fill('First tab message');
      await page.getByTestId('chat-send').click();
      await page.getByTestId('assistant-text').first().waitFor();
      const other = await context.newPage();
      await other.goto(`${server.url}/studio/workflows/${pdlcId}/run?project=two-tabs`);
      await other.getByTestId('chat-stop').waitFor();
      await other.getByTestId('assistant-text').first().waitFor();
      assert.equal(await other.getByTestId('chat-send').count(), 0);
      await page.getByTestId('chat-stop').click();
      // the other tab sees the run end (its replayed stream closes) and offers Send again
      await other.getByTestId('chat-send').waitFor({ timeout: 20_000 });
      assert.deepEqual(consoleErrors, []);
    });
  });
});
