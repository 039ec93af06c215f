/**
 * A readable canvas (issue 13 item 5), at 1280×800 and 1920×1080: the cloned PDLC pack opens on its
 * current stage at a readable zoom, laid out in stage lanes (not one long line), with panels that
 * collapse, no mini map over the nodes, palette nodes that never land on each other, and a loop edge
 * routed around the nodes that a click selects. Screenshots of the editor at open are kept.
 */
import { cloneOfPdlc } from './support/api';
import { nodeBoxes, overlaps, viewportSettled, zoom } from './support/canvas';
import { expect, test } from './support/fixtures';

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
]) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test(`the cloned PDLC pack opens readable, in stage lanes, with collapsible panels (${viewport.width}px)`, async ({
      page,
      consoleErrors,
    }, testInfo) => {
      const id = await cloneOfPdlc(page.request, `Readable ${viewport.width}`);
      const graph = await (await page.request.get(`/studio/api/workflows/${id}/graph`)).json();
      const rows = new Set(graph.nodes.map((n: { position_y: number }) => n.position_y));
      expect(rows.size, `one lane per stage, got rows ${[...rows].join(',')}`).toBeGreaterThanOrEqual(6);

      await page.goto(`/studio/workflows/${id}`);
      await expect(page.locator('[data-testid="flow-node"][data-node-key="discover"]')).toBeVisible();
      await expect(page.locator('.react-flow__viewport')).toHaveAttribute('style', /scale/);
      expect(await zoom(page), 'opening zoom').toBeGreaterThanOrEqual(0.6);
      // the current stage is in view, labelled by its lane
      const canvas = (await page.getByTestId('canvas').boundingBox())!;
      for (const key of ['discover', 'discover-gate']) {
        const b = (await page.locator(`[data-testid="flow-node"][data-node-key="${key}"]`).boundingBox())!;
        expect(
          b.x >= canvas.x &&
            b.x + b.width <= canvas.x + canvas.width &&
            b.y >= canvas.y &&
            b.y + b.height <= canvas.y + canvas.height,
          `${key} in view`,
        ).toBe(true);
      }
      await expect(page.locator('[data-testid="stage-lane"][data-stage="discover"]')).toBeAttached();
      // no mini map over the nodes when the editor opens
      await expect(page.locator('.react-flow__minimap')).toHaveCount(0);
      await page.screenshot({ path: testInfo.outputPath(`editor-open-${viewport.width}.png`) });

      // the navigation, palette and properties collapse, leaving the width to the canvas
      await page.getByTestId('nav-collapse').click();
      await page.getByTestId('toggle-palette').click();
      await page.getByTestId('toggle-properties').click();
      await expect(page.getByTestId('palette')).toHaveCount(0);
      await expect(page.getByTestId('property-panel')).toHaveCount(0);
      const canvasWidth = async () => (await page.getByTestId('canvas').boundingBox())!.width;
      await expect
        .poll(canvasWidth, { message: `the canvas takes the width of the ${viewport.width}px window` })
        .toBeGreaterThanOrEqual(viewport.width - 80);
      expect(await canvasWidth()).toBeGreaterThan(canvas.width + 300);
      // remembered across a reload
      await page.reload();
      await expect(page.getByTestId('flow-node').first()).toBeVisible();
      await expect(page.getByTestId('palette')).toHaveCount(0);
      expect(await canvasWidth()).toBeGreaterThanOrEqual(viewport.width - 80);
      expect(consoleErrors).toEqual([]);
    });
  });
}

test('palette nodes never land on other nodes; a loop edge goes around the nodes and a click selects it', async ({
  page,
  consoleErrors,
}) => {
  const id = await cloneOfPdlc(page.request, 'Loops');
  const graph = await (await page.request.get(`/studio/api/workflows/${id}/graph`)).json();
  // a loop in the design lane: design-gate → design again when the reply asks for changes
  graph.edges.push({ from_node: 'design-gate', to_node: 'design', condition: 'contains(reply, "redo")' });
  const put = await page.request.put(`/studio/api/workflows/${id}/graph`, {
    data: { nodes: graph.nodes, edges: graph.edges, version: graph.version },
  });
  expect(put.status(), await put.text()).toBe(200);

  await page.goto(`/studio/workflows/${id}`);
  const nodes = page.getByTestId('flow-node');
  await expect(page.locator('[data-testid="flow-node"][data-node-key="discover"]')).toBeVisible();
  for (let i = 0; i < 4; i++) {
    const n = await nodes.count();
    await page.getByTestId('palette-agent').click();
    await expect(nodes).toHaveCount(n + 1);
  }
  await page.getByTestId('fit-view').click();
  await expect(page.locator('[data-testid="flow-node"][data-node-key^="agent_"]')).toHaveCount(4);
  await viewportSettled(page);
  const boxes = await nodeBoxes(page);
  for (const a of boxes)
    for (const b of boxes) if (a !== b) expect(overlaps(a.box, b.box), `${a.key} overlaps ${b.key}`).toBe(false);

  // the loop edge: a path of its own that crosses no node, and clicking its middle selects it
  const loop = page.locator('.react-flow__edge.edge-loop');
  await expect(loop).toBeVisible();
  const mid = await loop.locator('path.react-flow__edge-path').evaluate((p: SVGPathElement) => {
    const pt = p.getPointAtLength(p.getTotalLength() / 2);
    const m = p.getScreenCTM()!;
    return { x: pt.x * m.a + pt.y * m.c + m.e, y: pt.x * m.b + pt.y * m.d + m.f };
  });
  for (const b of boxes)
    expect(overlaps({ x: mid.x - 1, y: mid.y - 1, width: 2, height: 2 }, b.box), `the loop runs through ${b.key}`).toBe(
      false,
    );
  await page.mouse.click(mid.x, mid.y);
  await expect(page.locator('.react-flow__edge.edge-loop.selected')).toBeVisible();
  await expect(page.locator('.react-flow__edge.selected')).toHaveCount(1);
  expect(consoleErrors).toEqual([]);
});
