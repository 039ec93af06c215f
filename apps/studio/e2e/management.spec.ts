/**
 * Management in the studio (issue 13 item 6): name a clone, rename a workflow and edit its stages,
 * rename and delete a project, delete a file — each checked against the API afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launch, login, withPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';

describe('management (browser)', () => {
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

  test('name a clone, rename it, add a stage; a stage still in use cannot be removed', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      await login(page, server.url);
      await page.goto(server.url + '/studio/workflows');
      await page.locator('[data-testid="workflows-row"][data-slug="pdlc"]').getByTestId('workflow-clone').click();
      assert.equal(await page.getByTestId('clone-name').inputValue(), 'Product Development Lifecycle (copy)');
      await page.getByTestId('clone-name').fill('Team PDLC');
      await page.getByTestId('clone-slug').fill('team-pdlc');
      await page.getByTestId('clone-save').click();
      const row = page.locator('[data-testid="workflows-row"][data-slug="team-pdlc"]');
      await row.waitFor();
      assert.equal(await row.getAttribute('data-name'), 'Team PDLC');

      await row.getByTestId('workflow-settings').click();
      await page.getByTestId('workflow-settings-name').fill('Team PDLC, revised');
      const stages = page.getByTestId('workflow-settings-stages');
      await stages.fill(`${await stages.inputValue()}\nretro`);
      await page.getByTestId('form-save').click();
      await page.locator('[data-testid="workflows-row"][data-slug="team-pdlc"][data-name="Team PDLC, revised"]').waitFor();
      const list = await (await page.request.get(server.url + '/studio/api/workflows')).json();
      const saved = list.find((w: { slug: string }) => w.slug === 'team-pdlc');
      assert.deepEqual(saved.stages, ['discover', 'design', 'develop', 'test', 'deploy', 'iterate', 'retro']);

      await row.getByTestId('workflow-settings').click();
      await page.getByTestId('workflow-settings-stages').fill('design\ndevelop\ntest\ndeploy\niterate\nretro');
      await page.getByTestId('form-save').click();
      await page.locator('[data-testid="workflow-settings-form"] .field-error').first().waitFor();
      assert.ok((await (await page.request.get(server.url + '/studio/api/workflows')).json()).find((w: { slug: string }) => w.slug === 'team-pdlc').stages.includes('discover'));
      assert.deepEqual(consoleErrors.filter((e) => !/status of 400/.test(e)), []);
    });
  });

  test('rename and delete a project, delete one of its files', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      await login(page, server.url);
      const packs = await (await page.request.get(server.url + '/agent/workflows')).json();
      const pdlc = packs.workflows.find((w: { slug: string }) => w.slug === 'pdlc');
      assert.equal((await page.request.put(`${server.url}/agent/workflows/tidy`, { data: { domain: 'pdlc', stage: 'discover', pack_id: pdlc.pack_id } })).status(), 200);
      assert.equal((await page.request.put(`${server.url}/studio/api/projects/tidy/files/docs/old.md`, { data: { content: '# Old notes' } })).status(), 200);
      await page.goto(`${server.url}/studio/workflows/${pdlc.pack_id}/run?project=tidy`);

      await page.getByTestId('project-rename').click();
      await page.getByTestId('project-rename-name').fill('Tidy flat');
      await page.getByTestId('project-rename-save').click();
      await page.locator('[data-testid="project-select"] option', { hasText: 'Tidy flat (tidy)' }).waitFor({ state: 'attached' });
      assert.equal((await (await page.request.get(`${server.url}/studio/api/projects/tidy`)).json()).name, 'Tidy flat');

      await page.locator('[data-testid="file-item"][data-path="docs/old.md"]').click();
      await page.getByTestId('file-delete').click();
      await page.locator('dialog[open] [data-testid="confirm-ok"]').click();
      await page.locator('[data-testid="file-item"][data-path="docs/old.md"]').waitFor({ state: 'detached' });
      assert.equal((await page.request.get(`${server.url}/studio/api/projects/tidy/files/docs/old.md`)).status(), 404);

      await page.getByTestId('project-delete').click();
      await page.locator('dialog[open] [data-testid="confirm-ok"]').click();
      await page.waitForURL((u) => !u.search.includes('project='));
      assert.equal((await page.request.get(`${server.url}/studio/api/projects/tidy`)).status(), 404);
      assert.equal(await page.locator('[data-testid="project-select"] option', { hasText: 'Tidy flat' }).count(), 0);
      // A read already on the wire when the delete lands may still come back 404 (seen once on CI's
      // Postgres pass); the studio cancels reads of what it deletes, and no other console error is allowed.
      assert.deepEqual(consoleErrors.filter((e) => !/status of 404/.test(e)), []);
    });
  });
});
