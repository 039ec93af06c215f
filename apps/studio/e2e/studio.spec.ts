/**
 * The typical studio flow in Debian's Chromium against the real server: bind a model (with a field
 * error from the API shown next to the field), write a skill, create an agent, clone the PDLC pack,
 * add a node and an edge on the canvas, save, reload and see them; then a stale save in a second tab.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launch, login, withPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';

async function dragBetween(page: Page, from: { x: number; y: number }, to: { x: number; y: number }) {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 5 });
  await page.mouse.move(to.x, to.y, { steps: 5 });
  await page.mouse.up();
}

async function center(page: Page, selector: string) {
  const box = await page.locator(selector).first().boundingBox();
  assert.ok(box, `no box for ${selector}`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

describe('studio (browser)', () => {
  let server: RunningServer;
  let browser: Browser;
  let cloneId = 0;
  before(async () => {
    server = await startServer();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('bind a model, write a skill, create an agent', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      await login(page, server.url);
      await page.goto(server.url + '/studio/models');
      await page.getByTestId('models-new').first().click();
      const form = page.getByTestId('model-form');
      await form.locator('input[name="label"]').fill('Local llama');
      await form.locator('select[name="provider"]').selectOption('custom');
      await form.locator('input[name="model_id"]').fill('llama3.1');
      await form.locator('input[name="temperature"]').fill('3');
      await form.locator('input[name="api_base"]').fill('http://127.0.0.1:11434/v1');
      await page.getByTestId('form-save').click();
      // the API refuses temperature 3; the error shows next to that field
      await form.locator('.field-invalid .field-error').first().waitFor();
      assert.match((await form.locator('.field-invalid').first().innerText()).toLowerCase(), /temperature/);
      await form.locator('input[name="temperature"]').fill('0.2');
      await page.getByTestId('form-save').click();
      await page.locator('[data-testid="models-row"][data-name="Local llama"]').waitFor();

      await page.goto(server.url + '/studio/skills');
      await page.getByTestId('skills-new').first().click();
      const skill = page.getByTestId('skill-form');
      await skill.locator('input[name="name"]').fill('PRD writing');
      await skill.locator('textarea[name="prompt_md"]').fill('# Write a PRD\nKeep it short.');
      await skill.locator('input[name="tool_allowlist"][value="write_file"]').check();
      await page.getByTestId('form-save').click();
      await page.locator('[data-testid="skills-row"][data-name="PRD writing"]').waitFor();

      await page.goto(server.url + '/studio/agents');
      await page.getByTestId('agents-new').first().click();
      const agent = page.getByTestId('agent-form');
      await agent.locator('input[name="name"]').fill('PRD writer');
      await agent.locator('input[name="role"]').fill('Product manager');
      const modelOption = agent.locator('select[name="model_id"] option', { hasText: 'Local llama' });
      await agent.locator('select[name="model_id"]').selectOption(await modelOption.getAttribute('value'));
      await agent.locator('label.checkbox', { hasText: 'PRD writing' }).locator('input').check();
      await page.getByTestId('form-save').click();
      await page.locator('[data-testid="agents-row"][data-name="PRD writer"]').waitFor();
      const agents = await (await page.request.get(server.url + '/studio/api/agents')).json();
      const mine = agents.find((a: { name: string }) => a.name === 'PRD writer');
      assert.ok(mine.model_id && mine.skill_ids.length === 1);
      assert.deepEqual(consoleErrors.filter((e) => !e.includes('400')), []);
    });
  });

  test('clone the PDLC pack, add a node and an edge, save, reload and see them', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      await login(page, server.url);
      await page.goto(server.url + '/studio/workflows');
      await page.locator('[data-testid="workflows-row"][data-slug="pdlc"]').getByTestId('workflow-clone').click();
      // the copy is named in a drawer (the default name is "<name> (copy)")
      await page.getByTestId('clone-save').click();
      await page.locator('[data-testid="workflows-row"]').filter({ hasNotText: 'System' }).first().waitFor();
      const list = await (await page.request.get(server.url + '/studio/api/workflows')).json();
      const clone = list.find((w: { is_system: boolean; slug: string }) => !w.is_system);
      assert.ok(clone, 'a clone exists');
      cloneId = clone.id;
      await page.goto(`${server.url}/studio/workflows/${cloneId}`);
      await page.getByTestId('workflow-editor').waitFor();
      await page.locator('[data-testid="flow-node"]').first().waitFor();
      const before = await page.locator('[data-testid="flow-node"]').count();
      await page.getByTestId('palette-agent').click();
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="flow-node"]').length === n + 1, before);
      // the new node is selected: set its properties
      const key = await page.getByTestId('prop-node-key').inputValue();
      const agentOption = page.locator('[data-testid="prop-agent"] option', { hasText: 'PRD writer' });
      await page.getByTestId('prop-agent').selectOption(await agentOption.getAttribute('value'));
      await page.getByTestId('prop-stage').selectOption('design');
      // move the new node (added at the canvas centre, maybe over others) to open space, then
      // connect the system "design" agent node to it
      const src = `[data-testid="flow-node"][data-node-key="design"]`;
      const dst = `[data-testid="flow-node"][data-node-key="${key}"]`;
      await page.locator(dst).waitFor();
      const canvas = await page.getByTestId('canvas').boundingBox();
      assert.ok(canvas);
      await dragBetween(page, await center(page, dst), { x: canvas.x + canvas.width / 2, y: canvas.y + canvas.height - 120 });
      await page.getByTestId('fit-view').click();
      await page.waitForTimeout(400); // fit-view animates
      const edgesBefore = await page.locator('.react-flow__edge').count();
      for (let attempt = 0; attempt < 3; attempt++) {
        const from = await center(page, `.react-flow__node:has(${src}) .react-flow__handle.source`);
        const to = await center(page, `.react-flow__node:has(${dst}) .react-flow__handle.target`);
        await dragBetween(page, from, to);
        if ((await page.locator('.react-flow__edge').count()) === edgesBefore + 1) break;
      }
      assert.equal(await page.locator('.react-flow__edge').count(), edgesBefore + 1, 'the edge was drawn');
      await page.getByTestId('save-graph').click();
      await page.locator('[data-testid="dirty-indicator"][data-dirty="false"]').waitFor();
      const graph = await (await page.request.get(`${server.url}/studio/api/workflows/${cloneId}/graph`)).json();
      const node = graph.nodes.find((n: { node_key: string }) => n.node_key === key);
      assert.equal(node?.stage_label, 'design');
      assert.ok(graph.edges.some((e: { from_node: string; to_node: string }) => e.from_node === 'design' && e.to_node === key));
      await page.reload();
      // the editor opens on the current stage (only what is in view is drawn): fit the whole graph first
      await page.locator('[data-testid="flow-node"]').first().waitFor();
      await page.getByTestId('fit-view').click();
      await page.waitForTimeout(400); // fit-view animates
      await page.locator(dst).waitFor();
      assert.equal(await page.locator('.react-flow__edge').count(), edgesBefore + 1);
      assert.deepEqual(consoleErrors, []);
    });
  });

  test('a stale save says so and offers a reload', async (t) => {
    assert.ok(cloneId, 'runs after the clone test');
    await withPage(browser, t, async ({ page, context }) => {
      await login(page, server.url);
      const other = await context.newPage();
      for (const p of [page, other]) {
        await p.goto(`${server.url}/studio/workflows/${cloneId}`);
        await p.locator('[data-testid="flow-node"]').first().waitFor();
      }
      await other.getByTestId('palette-gate').click();
      await other.getByTestId('save-graph').click();
      await other.locator('[data-testid="dirty-indicator"][data-dirty="false"]').waitFor();
      await page.getByTestId('palette-branch').click();
      await page.getByTestId('save-graph').click();
      await page.getByTestId('conflict-banner').waitFor();
      await page.getByTestId('conflict-reload').click();
      await page.getByTestId('conflict-banner').waitFor({ state: 'detached' });
      const graph = await (await page.request.get(`${server.url}/studio/api/workflows/${cloneId}/graph`)).json();
      assert.ok(graph.nodes.some((n: { type: string }) => n.type === 'gate'));
      assert.equal(await page.locator('[data-testid="flow-node"][data-node-type="branch"]').count(), 0, 'the reload shows the saved graph');
    });
  });
});
