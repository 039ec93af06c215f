/**
 * Browser tests against the real production server and database, in Debian's Chromium:
 * the login redirect, the public demo, and the typical workspace flow on the offline provider.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launch, login, withPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';

describe('workspace (browser)', () => {
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

  test('an anonymous visitor is sent to the login page and back', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      await page.goto(server.url + '/studio/agents');
      await page.waitForURL(/\/studio\/login\?next=%2Fstudio%2Fagents/);
      await page.getByTestId('login-username').fill('admin');
      await page.getByTestId('login-password').fill('admin-password-1');
      await page.getByTestId('login-submit').click();
      await page.waitForURL(/\/studio\/agents$/);
      await page.getByTestId('agents-page').waitFor();
      assert.deepEqual(consoleErrors.filter((e) => !e.includes('401')), []);
    });
  });

  test('the public demo answers without login', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      await page.goto(server.url + '/demo');
      await page.getByTestId('demo-page').waitFor();
      await page.getByTestId('chat-input').fill('We want an app for shared flat expenses');
      await page.getByTestId('chat-send').click();
      await page.getByTestId('demo-reply').filter({ hasText: 'No language model is configured' }).waitFor();
      assert.ok((await page.getByTestId('tool-card').count()) >= 1);
      assert.deepEqual(consoleErrors, []);
    });
  });

  test('workspace flow: project, streamed chat with tool cards, artifact, gate approval', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      await login(page, server.url);
      const packs = await (await page.request.get(server.url + '/agent/workflows')).json();
      const pdlc = packs.workflows.find((w: { slug: string }) => w.slug === 'pdlc');
      await page.goto(`${server.url}/studio/workflows/${pdlc.pack_id}/run`);
      await page.getByTestId('run-page').waitFor();
      await page.getByTestId('project-new').click();
      await page.getByTestId('project-name').fill('Budget app');
      await page.getByTestId('project-slug').fill('budget-app');
      await page.getByTestId('project-create').click();
      await page.getByTestId('stage-strip').waitFor();
      await page.locator('[data-testid="stage-discover"][data-state="current"]').waitFor();
      await page.getByTestId('chat-input').fill('Students lose track of shared expenses');
      await page.getByTestId('chat-send').click();
      // while streaming the reply is the live turn; once done it becomes a history message
      await page
        .locator('[data-testid="assistant-text"], [data-testid="chat-message"][data-role="assistant"]')
        .filter({ hasText: 'No language model is configured' })
        .first()
        .waitFor();
      await page.locator('[data-testid="tool-card"][data-tool="write_file"]').first().waitFor();
      assert.ok((await page.locator('[data-testid="tool-card"][data-tool="list_files"]').count()) >= 1);
      await page.getByTestId('gate-banner').waitFor();
      const artifact = page.locator('[data-testid="file-item"][data-path="docs/discovery.md"]');
      await artifact.waitFor();
      await artifact.click();
      await page.getByTestId('file-content').filter({ hasText: 'Students lose track of shared expenses' }).waitFor();
      await page.getByTestId('gate-approve').click();
      await page.locator('[data-testid="stage-design"][data-state="current"]').waitFor();
      const state = await (await page.request.get(server.url + '/agent/workflows/budget-app')).json();
      assert.equal(state.stage, 'design');
      assert.equal(state.awaiting_gate, null);
      await page.reload();
      await page.getByTestId('chat-message').filter({ hasText: 'Students lose track of shared expenses' }).first().waitFor();
      assert.deepEqual(consoleErrors, []);
    });
  });
});
