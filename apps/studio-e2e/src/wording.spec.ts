/**
 * Messages in a person's words (issue 13 item 10): graph problems on the canvas say what to do, not which
 * field is wrong (`agent_id: …`), and a refused delete names the records that use it by name, not by id.
 */
import { cloneOfPdlc } from './support/api';
import { expect, test } from './support/fixtures';

const FIELD_NAMES = /agent_id|stage_label|node_key|from_node|to_node/;

test('graph problems name what to do, not fields', async ({ page, consoleErrors }) => {
  const id = await cloneOfPdlc(page.request, 'Wording pack');
  await page.goto(`/studio/workflows/${id}`);
  await page.getByTestId('palette-agent').click();
  await page.getByTestId('problems-toggle').click();
  const list = page.getByTestId('problems-list');
  await expect(list).toContainText('Choose the agent this node runs.');
  expect(await list.textContent()).not.toMatch(FIELD_NAMES);

  // an edge's problem is named by its ends and, clicked, selects that edge
  await page.getByRole('button', { name: 'Close problems' }).click();
  await page.locator('.react-flow__edge[aria-label="Edge from discover to discover-gate"]').focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('prop-condition').fill('reply ==');
  await page.locator('.react-flow__node', { hasText: 'PDLC Discovery Analyst' }).click();
  await expect(page.getByTestId('edge-properties')).toHaveCount(0);
  await page.getByTestId('problems-toggle').click();
  const row = list.locator('li', { hasText: 'discover → discover-gate' });
  await expect(row).toContainText('Condition:');
  await row.getByRole('button').click();
  await expect(page.getByTestId('prop-condition')).toHaveValue('reply ==');
  expect(consoleErrors).toEqual([]);
});

test('a refused delete names the agents that use the model, by name', async ({ page, consoleErrors }) => {
  const model = await (
    await page.request.post('/studio/api/models', {
      data: { label: 'Shared fast model', provider: 'vendor_a', model_id: 'gpt-4o-mini' },
    })
  ).json();
  const agent = await page.request.post('/studio/api/agents', { data: { name: 'Careful writer', model_id: model.id } });
  expect(agent.status()).toBe(201);
  await page.goto('/studio/models');
  await page.getByRole('button', { name: 'Delete model Shared fast model' }).click();
  await page.locator('dialog[open] [data-testid="confirm-ok"]').click();
  const dialog = page.locator('dialog[open][data-testid="confirm-dialog"]');
  await expect(dialog).toContainText('The model "Shared fast model" is used by the agent "Careful writer"');
  expect(await dialog.textContent()).not.toMatch(/\(\d+\)|Model \d+/);
  expect(consoleErrors.filter((e) => !/status of 409/.test(e))).toEqual([]);
});
