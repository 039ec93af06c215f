/**
 * Building a graph from the keyboard (issue 13): Tab opens quick add with search — after the selected
 * node, or onto the selected edge (inserted between its ends) — and "c" connects the selected node to
 * another one picked by name; each edit is announced by node names.
 */
import type { Page } from '@playwright/test';
import { cloneOfPdlc } from './support/api';
import { expect, test } from './support/fixtures';

type Graph = { nodes: { node_key: string; type: string }[]; edges: { from_node: string; to_node: string }[] };
const edgesOf = (g: Graph) => g.edges.map((e) => `${e.from_node}>${e.to_node}`);

async function savedGraph(page: Page, id: number): Promise<Graph> {
  await page.getByTestId('save-graph').click();
  await expect(page.getByTestId('dirty-indicator')).toHaveText('Saved');
  return (await page.request.get(`/studio/api/workflows/${id}/graph`)).json();
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
]) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test(`quick add after a node, insert onto an edge, connect by keyboard (${viewport.width}px)`, async ({
      page,
      consoleErrors,
    }, testInfo) => {
      const id = await cloneOfPdlc(page.request, `Quick ${viewport.width}`);
      await page.goto(`/studio/workflows/${id}`);
      const announcer = page.getByTestId('canvas-announcer');

      // Tab after the selected agent node: search, Enter
      await page.locator('.react-flow__node', { hasText: 'PDLC Discovery Analyst' }).click();
      await expect(page.getByTestId('node-add-after')).toBeVisible();
      await page.keyboard.press('Tab');
      const search = page.getByTestId('quick-add-search');
      await expect(search).toBeFocused();
      await search.fill('gat');
      await expect(page.getByTestId('quick-add-option')).toHaveCount(1);
      await page.screenshot({ path: testInfo.outputPath(`quick-add-${viewport.width}.png`) });
      await page.keyboard.press('Enter');
      await expect(page.getByTestId('quick-add')).toHaveCount(0);
      await expect(announcer).toHaveText('Added gate_1 after discover.');

      // "c": connect the new node to another one, picked by name
      await page.keyboard.press('c');
      await search.fill('design-gate');
      await page.keyboard.press('Enter');
      await expect(announcer).toHaveText('Connected gate_1 → design-gate.');
      let g = await savedGraph(page, id);
      expect(edgesOf(g)).toEqual(expect.arrayContaining(['discover>gate_1', 'gate_1>design-gate']));

      // an edge selected from the keyboard: Tab inserts onto it
      const edge = page.locator('.react-flow__edge[aria-label="Edge from discover to discover-gate"]');
      await edge.focus();
      await page.keyboard.press('Enter');
      await expect(page.getByTestId('edge-insert')).toBeVisible();
      await page.keyboard.press('Tab');
      await search.fill('branch');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('Enter');
      await expect(announcer).toHaveText('Inserted branch_1 between discover and discover-gate.');
      g = await savedGraph(page, id);
      expect(edgesOf(g)).toEqual(expect.arrayContaining(['discover>branch_1', 'branch_1>discover-gate']));
      expect(edgesOf(g)).not.toContain('discover>discover-gate');
      // Escape closes without adding
      await page.keyboard.press('Tab');
      await page.keyboard.press('Escape');
      await expect(page.getByTestId('quick-add')).toHaveCount(0);
      expect(consoleErrors).toEqual([]);
    });
  });
}
