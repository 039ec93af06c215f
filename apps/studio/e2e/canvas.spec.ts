/**
 * A readable canvas (issue 13 item 5), at 1280×800 and 1920×1080: the cloned PDLC pack opens on its
 * current stage at a readable zoom, laid out in stage lanes (not one long line), with panels that
 * collapse, no mini map over the nodes, palette nodes that never land on each other, and a loop edge
 * routed around the nodes that a click selects. Screenshots of the editor at open are kept.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launch, login, withPage } from './support/browser';
import { startServer, type RunningServer } from './support/server';

const shots = join(__dirname, '../../../test-results/e2e');

async function zoom(page: Page): Promise<number> {
  const t = await page.locator('.react-flow__viewport').evaluate((el) => getComputedStyle(el).transform);
  const m = /matrix\(([-\d.e]+)/.exec(t);
  assert.ok(m, `no transform: ${t}`);
  return Number(m[1]);
}

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function nodeBoxes(page: Page): Promise<{ key: string; box: Box }[]> {
  const out: { key: string; box: Box }[] = [];
  for (const el of await page.locator('[data-testid="flow-node"]').all()) {
    const box = await el.boundingBox();
    if (box) out.push({ key: (await el.getAttribute('data-node-key')) ?? '', box });
  }
  return out;
}

describe('canvas (browser)', () => {
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

  async function cloneOfPdlc(page: Page, name: string): Promise<number> {
    const list = await (await page.request.get(server.url + '/studio/api/workflows')).json();
    const pdlc = list.find((w: { slug: string; is_system: boolean }) => w.slug === 'pdlc' && w.is_system);
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const r = await page.request.post(`${server.url}/studio/api/workflows/${pdlc.id}/clone`, { data: { name, slug } });
    assert.equal(r.status(), 201, await r.text());
    return (await r.json()).id;
  }

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 1920, height: 1080 },
  ]) {
    test(`the cloned PDLC pack opens readable, in stage lanes, with collapsible panels (${viewport.width}px)`, async (t) => {
      await withPage(
        browser,
        t,
        async ({ page, consoleErrors }) => {
          await login(page, server.url);
          const id = await cloneOfPdlc(page, `Readable ${viewport.width}`);
          const graph = await (await page.request.get(`${server.url}/studio/api/workflows/${id}/graph`)).json();
          const rows = new Set(graph.nodes.map((n: { position_y: number }) => n.position_y));
          assert.ok(rows.size >= 6, `one lane per stage, got rows ${[...rows].join(',')}`);

          await page.goto(`${server.url}/studio/workflows/${id}`);
          await page.locator('[data-testid="flow-node"][data-node-key="discover"]').waitFor();
          await page.waitForFunction(() => !!document.querySelector('.react-flow__viewport')?.getAttribute('style')?.includes('scale'));
          assert.ok((await zoom(page)) >= 0.6, `opening zoom ${await zoom(page)}`);
          // the current stage is in view, labelled by its lane
          const canvas = (await page.getByTestId('canvas').boundingBox())!;
          for (const key of ['discover', 'discover-gate']) {
            const b = (await page.locator(`[data-testid="flow-node"][data-node-key="${key}"]`).boundingBox())!;
            assert.ok(b.x >= canvas.x && b.x + b.width <= canvas.x + canvas.width && b.y >= canvas.y && b.y + b.height <= canvas.y + canvas.height, `${key} in view`);
          }
          await page.locator('[data-testid="stage-lane"][data-stage="discover"]').waitFor({ state: 'attached' });
          // no mini map over the nodes when the editor opens
          assert.equal(await page.locator('.react-flow__minimap').count(), 0);
          mkdirSync(shots, { recursive: true });
          await page.screenshot({ path: join(shots, `editor-open-${viewport.width}.png`) });

          // the navigation, palette and properties collapse, leaving the width to the canvas
          const narrow = canvas.width;
          await page.getByTestId('nav-collapse').click();
          await page.getByTestId('toggle-palette').click();
          await page.getByTestId('toggle-properties').click();
          await page.waitForFunction((w) => (document.querySelector('[data-testid="canvas"]')?.getBoundingClientRect().width ?? 0) > w + 300, narrow);
          const wide = (await page.getByTestId('canvas').boundingBox())!.width;
          assert.ok(wide >= viewport.width - 80, `canvas ${wide}px wide of ${viewport.width}`);
          assert.equal(await page.getByTestId('palette').count(), 0);
          assert.equal(await page.getByTestId('property-panel').count(), 0);
          // remembered across a reload
          await page.reload();
          await page.locator('[data-testid="flow-node"]').first().waitFor();
          assert.equal(await page.getByTestId('palette').count(), 0);
          assert.ok(((await page.getByTestId('canvas').boundingBox())!.width) >= viewport.width - 80);
          assert.deepEqual(consoleErrors, []);
        },
        viewport,
      );
    });
  }

  test('palette nodes never land on other nodes; a loop edge goes around the nodes and a click selects it', async (t) => {
    await withPage(browser, t, async ({ page, consoleErrors }) => {
      await login(page, server.url);
      const id = await cloneOfPdlc(page, 'Loops');
      const graph = await (await page.request.get(`${server.url}/studio/api/workflows/${id}/graph`)).json();
      // a loop in the design lane: design-gate → design again when the reply asks for changes
      graph.edges.push({ from_node: 'design-gate', to_node: 'design', condition: 'contains(reply, "redo")' });
      const put = await page.request.put(`${server.url}/studio/api/workflows/${id}/graph`, { data: { nodes: graph.nodes, edges: graph.edges, version: graph.version } });
      assert.equal(put.status(), 200, await put.text());

      await page.goto(`${server.url}/studio/workflows/${id}`);
      await page.locator('[data-testid="flow-node"][data-node-key="discover"]').waitFor();
      for (let i = 0; i < 4; i++) {
        const n = await page.locator('[data-testid="flow-node"]').count();
        await page.getByTestId('palette-agent').click();
        await page.waitForFunction((c) => document.querySelectorAll('[data-testid="flow-node"]').length > c, n);
      }
      await page.getByTestId('fit-view').click();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="flow-node"][data-node-key^="agent_"]').length === 4);
      await page.waitForTimeout(400); // fit-view animates for 250 ms
      const boxes = await nodeBoxes(page);
      for (const a of boxes) for (const b of boxes) if (a !== b) assert.ok(!overlaps(a.box, b.box), `${a.key} overlaps ${b.key}`);

      // the loop edge: a path of its own that crosses no node, and clicking its middle selects it
      const loop = page.locator('.react-flow__edge.edge-loop');
      await loop.waitFor();
      const mid = await loop.locator('path.react-flow__edge-path').evaluate((p: SVGPathElement) => {
        const pt = p.getPointAtLength(p.getTotalLength() / 2);
        const m = p.getScreenCTM()!;
        return { x: pt.x * m.a + pt.y * m.c + m.e, y: pt.x * m.b + pt.y * m.d + m.f };
      });
      for (const b of boxes) assert.ok(!overlaps({ x: mid.x - 1, y: mid.y - 1, width: 2, height: 2 }, b.box), `the loop runs through ${b.key}`);
      await page.mouse.click(mid.x, mid.y);
      await page.locator('.react-flow__edge.edge-loop.selected').waitFor();
      assert.equal(await page.locator('.react-flow__edge.selected').count(), 1);
      assert.deepEqual(consoleErrors, []);
    });
  });
});
