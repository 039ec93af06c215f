/**
 * Stages on the run page (issue 13 item 8): a gate approval leaves a trace (the stage move) and the
 * turn's token usage stays after the turn; moving the project back to an earlier stage asks first.
 * The offline provider answers (no model configured).
 */
import { pdlcProject } from './support/api';
import { expect, test } from './support/fixtures';

test('the approval and the usage stay after the turn; going back a stage is confirmed first', async ({
  page,
  consoleErrors,
}, testInfo) => {
  const stage = async () => (await (await page.request.get('/agent/workflows/stages')).json()).stage;
  const packId = await pdlcProject(page.request, 'stages');
  await page.goto(`/studio/workflows/${packId}/run?project=stages`);
  await page.getByTestId('chat-input').fill('Students lose track of shared expenses');
  await page.getByTestId('chat-send').click();
  await page.getByTestId('gate-approve').click();
  await expect(page.getByTestId('stage-design')).toHaveAttribute('data-state', 'current');
  // after the turn (history refetched, its messages no longer live) the approval is history's own entry,
  // naming the gate, once (not again in the live turn), and the usage remains
  const approval = page.getByTestId('stage-change-entry');
  await expect(approval).toHaveText(/Approved the gate discover-gate: moved from discover to design/);
  const turn = page.locator('[data-testid="live-turn"][data-status="done"]');
  await expect(turn).toBeVisible();
  await expect(page.locator('[data-testid="live-turn"] [data-testid="assistant-text"]')).toHaveCount(0);
  await expect(turn.getByTestId('activity').filter({ hasText: 'Stage discover → design' })).toHaveCount(0);
  await expect(turn.locator('.msg-meta')).toHaveText(/\d+ in · \d+ out tokens/);
  await page.screenshot({ path: testInfo.outputPath('gate-approval-in-history.png') });
  // it is stored: a reload shows it again, after the discovery reply
  await page.reload();
  await expect(approval).toHaveCount(1);
  await expect(page.locator('[data-testid="chat-log"] > *').last()).toHaveAttribute(
    'data-testid',
    'stage-change-entry',
  );

  // back to discover: asked first; Cancel keeps design
  await page.getByTestId('stage-discover').click();
  const dialog = page.locator('dialog[open][data-testid="confirm-dialog"]');
  await expect(dialog).toContainText('Move the project back to discover');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  expect(await stage()).toBe('design');
  await page.getByTestId('stage-discover').click();
  await page.locator('dialog[open] [data-testid="confirm-ok"]').click();
  await expect(page.getByTestId('stage-discover')).toHaveAttribute('data-state', 'current');
  expect(await stage()).toBe('discover');
  // forward moves need no confirmation
  await page.getByTestId('stage-test').click();
  await expect(page.getByTestId('stage-test')).toHaveAttribute('data-state', 'current');
  expect(consoleErrors).toEqual([]);
});
