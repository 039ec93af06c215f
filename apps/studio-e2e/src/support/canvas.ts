/** Reading the workflow canvas (React Flow) from a test. */
import { expect, type Page } from '@playwright/test';

export type Box = { x: number; y: number; width: number; height: number };

export const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

const viewportTransform = (page: Page) =>
  page.locator('.react-flow__viewport').evaluate((el) => getComputedStyle(el).transform);

/** The canvas zoom (the scale of the viewport's transform matrix). */
export async function zoom(page: Page): Promise<number> {
  const t = await viewportTransform(page);
  const m = /matrix\(([-\d.e]+)/.exec(t);
  expect(m, `no transform: ${t}`).not.toBeNull();
  return Number(m![1]);
}

/**
 * Waits until the viewport stops moving (fit-view animates): two readings 100 ms apart agree. A
 * retrying assertion, bounded by the expect timeout.
 */
export async function viewportSettled(page: Page): Promise<void> {
  let last = '';
  await expect
    .poll(
      async () => {
        const now = await viewportTransform(page);
        const same = now === last;
        last = now;
        return same;
      },
      { message: 'the canvas viewport stops moving', intervals: [100] },
    )
    .toBe(true);
}

/** Every node's key and box on the screen. */
export async function nodeBoxes(page: Page): Promise<{ key: string; box: Box }[]> {
  const out: { key: string; box: Box }[] = [];
  for (const el of await page.locator('[data-testid="flow-node"]').all()) {
    const box = await el.boundingBox();
    if (box) out.push({ key: (await el.getAttribute('data-node-key')) ?? '', box });
  }
  return out;
}
