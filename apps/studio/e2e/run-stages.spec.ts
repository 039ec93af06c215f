/**
 * Stages on the run page (issue 13 item 8): a gate approval leaves a trace (the stage move) and the
 * turn's token usage stays after the turn; moving the project back to an earlier stage asks first.
 * The offline provider answers (no model configured).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launch, login, withPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';

describe('run page: stages (browser)', () => {
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

  test('the approval and the usage stay after the turn; going back a stage is confirmed first', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      await login(page, server.url);
      const packs = await (await page.request.get(server.url + '/agent/workflows')).json();
      const pdlc = packs.workflows.find((w: { slug: string }) => w.slug === 'pdlc');
      assert.equal((await page.request.put(`${server.url}/agent/workflows/stages`, { data: { domain: 'pdlc', stage: 'discover', pack_id: pdlc.pack_id } })).status(), 200);
      await page.goto(`${server.url}/studio/workflows/${pdlc.pack_id}/run?project=stages`);
      await page.getByTestId('chat-input').fill('Students lose track of shared expenses');
      await page.getByTestId('chat-send').click();
      await page.getByTestId('gate-approve').click();
      await page.locator('[data-testid="stage-design"][data-state="current"]').waitFor();
      // after the turn (history refetched, its messages no longer live) the approval and the usage remain
      const turn = page.locator('[data-testid="live-turn"][data-status="done"]');
      await turn.waitFor();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="live-turn"] [data-testid="assistant-text"]').length === 0);
      await turn.getByTestId('activity').filter({ hasText: 'Stage discover → design' }).waitFor();
      assert.match((await turn.locator('.msg-meta').textContent()) ?? '', /\d+ in · \d+ out tokens/);

      // back to discover: asked first; Cancel keeps design
      await page.getByTestId('stage-discover').click();
      const dialog = page.locator('dialog[open][data-testid="confirm-dialog"]');
      await dialog.waitFor();
      assert.match((await dialog.textContent()) ?? '', /Move the project back to discover/);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await (await page.request.get(`${server.url}/agent/workflows/stages`)).json()).stage, 'design');
      await page.getByTestId('stage-discover').click();
      await page.locator('dialog[open] [data-testid="confirm-ok"]').click();
      await page.locator('[data-testid="stage-discover"][data-state="current"]').waitFor();
      assert.equal((await (await page.request.get(`${server.url}/agent/workflows/stages`)).json()).stage, 'discover');
      // forward moves need no confirmation
      await page.getByTestId('stage-test').click();
      await page.locator('[data-testid="stage-test"][data-state="current"]').waitFor();
      assert.deepEqual(consoleErrors, []);
    });
  });
});
