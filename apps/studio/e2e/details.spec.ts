/**
 * Smaller fixes a new user trips on (issue 13 item 10 and "Deliver"): drawers put the caret in the
 * first field and a stray backdrop click keeps what was typed; Ctrl+A selects the canvas's nodes and
 * Ctrl+C/Ctrl+V/Ctrl+D copy, paste and duplicate them; sign-in offers no owner account once one exists;
 * the workflow 404 page links back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launch, login, withPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';

describe('details (browser)', () => {
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

  const nodeCount = (page: Page) => page.locator('[data-testid="flow-node"]').count();

  test('a drawer focuses its first field and a backdrop click keeps what was typed', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      await login(page, server.url);
      await page.goto(server.url + '/studio/workflows');
      await page.getByTestId('workflows-new').click();
      const drawer = page.getByTestId('workflow-create-drawer');
      await drawer.locator('input[name="name"]').waitFor();
      await page.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.name === 'name');
      await page.keyboard.type('Typed straight away');
      // the backdrop: the left edge of the window, outside the drawer
      await page.mouse.click(5, 400);
      assert.ok(await drawer.evaluate((d: HTMLDialogElement) => d.open), 'still open');
      assert.equal(await drawer.locator('input[name="name"]').inputValue(), 'Typed straight away');
      assert.deepEqual(consoleErrors, []);
    });
  });

  test('Ctrl+A selects every node; Ctrl+C / Ctrl+V paste copies; Ctrl+D duplicates', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      await login(page, server.url);
      const list = await (await page.request.get(server.url + '/studio/api/workflows')).json();
      const pdlc = list.find((w: { slug: string }) => w.slug === 'pdlc');
      const r = await page.request.post(`${server.url}/studio/api/workflows/${pdlc.id}/clone`, { data: { name: 'Keys', slug: 'keys' } });
      const id = (await r.json()).id;
      const graph = await (await page.request.get(`${server.url}/studio/api/workflows/${id}/graph`)).json();
      await page.goto(`${server.url}/studio/workflows/${id}`);
      await page.locator('[data-testid="flow-node"][data-node-key="discover"]').click();
      await page.keyboard.press('Control+a');
      await page.waitForFunction((n) => document.querySelectorAll('.react-flow__node.selected').length >= n, 2);
      assert.equal(await page.evaluate(() => String(window.getSelection() ?? '')), '', 'no page text selected');

      // copy the discover agent and its gate (the edge between them comes along), paste them
      const canvas = (await page.getByTestId('canvas').boundingBox())!;
      await page.mouse.click(canvas.x + 20, canvas.y + 20); // the empty pane: clears the selection
      await page.waitForFunction(() => document.querySelectorAll('.react-flow__node.selected').length === 0);
      await page.locator('[data-testid="flow-node"][data-node-key="discover"]').click();
      await page.locator('[data-testid="flow-node"][data-node-key="discover-gate"]').click({ modifiers: ['Control'] });
      await page.waitForFunction(() => document.querySelectorAll('.react-flow__node.selected').length === 2);
      await page.keyboard.press('Control+c');
      await page.keyboard.press('Control+v');
      await page.locator('[data-testid="dirty-indicator"][data-dirty="true"]').waitFor();
      // the pasted pair is selected now: Ctrl+D duplicates it
      await page.keyboard.press('Control+d');
      await page.getByTestId('save-graph').click();
      await page.locator('[data-testid="dirty-indicator"][data-dirty="false"]').waitFor();
      const saved = await (await page.request.get(`${server.url}/studio/api/workflows/${id}/graph`)).json();
      assert.equal(saved.nodes.length, graph.nodes.length + 4);
      const copy = saved.nodes.find((n: { node_key: string }) => n.node_key === 'discover_copy_1');
      const orig = saved.nodes.find((n: { node_key: string }) => n.node_key === 'discover');
      assert.equal(copy.agent_id, orig.agent_id);
      assert.equal(copy.stage_label, 'discover');
      assert.ok(saved.edges.some((e: { from_node: string; to_node: string }) => e.from_node === 'discover_copy_1' && e.to_node === 'discover-gate_copy_1'));
      assert.ok(saved.nodes.some((n: { node_key: string }) => n.node_key === 'discover_copy_1_copy_1'), 'the duplicate of the pasted copy');
      assert.ok((await nodeCount(page)) > 0);
      assert.deepEqual(consoleErrors, []);
    });
  });

  test('sign-in does not offer to create the owner account once it exists; a missing workflow links back', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      const setup = page.waitForResponse((r) => r.url().includes('/auth/setup'));
      await page.goto(server.url + '/studio/login');
      await setup;
      await page.getByTestId('login-submit').waitFor();
      assert.equal(await page.getByTestId('setup-mode').count(), 0);
      await login(page, server.url);
      await page.goto(server.url + '/studio/workflows/999999');
      await page.getByTestId('back-to-workflows').click();
      await page.getByTestId('workflows-page').waitFor();
      assert.deepEqual(consoleErrors.filter((e) => !/status of 404/.test(e)), []);
    });
  });
});
