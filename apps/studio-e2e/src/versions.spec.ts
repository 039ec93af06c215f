/**
 * Workflow versions in the editor (issue 13): every save is a version; History lists them, shows an
 * earlier one's nodes and edges, and restores it as a new version (history is never rewritten).
 */
import { cloneOfPdlc } from './support/api';
import { expect, test } from './support/fixtures';

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
]) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test(`view and restore an earlier version (${viewport.width}px)`, async ({ page, consoleErrors }, testInfo) => {
      const id = await cloneOfPdlc(page.request, `Versions ${viewport.width}`);
      await page.goto(`/studio/workflows/${id}`);
      const graph = async () => (await page.request.get(`/studio/api/workflows/${id}/graph`)).json();
      const before = (await graph()).nodes.length;
      await expect(page.getByTestId('graph-version')).toHaveText('v1');
      await page.getByTestId('palette-gate').click();
      await page.getByTestId('save-graph').click();
      await expect(page.getByTestId('graph-version')).toHaveText('v2');

      await page.getByTestId('version-history').click();
      const drawer = page.getByTestId('versions-drawer');
      const rows = drawer.getByTestId('version-row');
      await expect(rows).toHaveCount(2);
      await expect(rows.first()).toContainText('current');
      await expect(rows.first()).toContainText(`${before + 1} nodes`);
      const v1 = drawer.locator('[data-testid="version-row"][data-version="1"]');
      await expect(v1).toContainText(`${before} nodes`);
      await v1.getByTestId('version-view').click();
      await expect(v1.getByTestId('version-detail')).toContainText('discover-gate');
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.screenshot({ path: testInfo.outputPath(`versions-${viewport.width}.png`) });

      await v1.getByTestId('version-restore').click();
      await page.locator('dialog[open] [data-testid="confirm-ok"]').click();
      await expect(page.getByTestId('graph-version')).toHaveText('v3');
      await expect(page.getByTestId('dirty-indicator')).toHaveText('Saved');
      expect((await graph()).nodes.length).toBe(before);
      const list = await (await page.request.get(`/studio/api/workflows/${id}/versions`)).json();
      expect(list.versions.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
      expect(consoleErrors).toEqual([]);
    });
  });
}
