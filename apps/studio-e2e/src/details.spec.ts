/**
 * Smaller fixes a new user trips on (issue 13 item 10 and "Deliver"): drawers put the caret in the
 * first field and a stray backdrop click keeps what was typed; Ctrl+A selects the canvas's nodes and
 * Ctrl+C/Ctrl+V/Ctrl+D copy, paste and duplicate them; sign-in offers no owner account once one exists;
 * the workflow 404 page links back.
 */
import { cloneOfPdlc } from './support/api';
import { expect, test } from './support/fixtures';

test('a drawer focuses its first field and a backdrop click keeps what was typed', async ({ page, consoleErrors }) => {
  await page.goto('/studio/workflows');
  await page.getByTestId('workflows-new').click();
  const drawer = page.getByTestId('workflow-create-drawer');
  const name = drawer.locator('input[name="name"]');
  await expect(name).toBeFocused();
  await page.keyboard.type('Typed straight away');
  // the backdrop: the left edge of the window, outside the drawer
  await page.mouse.click(5, 400);
  expect(await drawer.evaluate((d: HTMLDialogElement) => d.open), 'still open').toBe(true);
  await expect(name).toHaveValue('Typed straight away');
  expect(consoleErrors).toEqual([]);
});

test('Ctrl+A selects every node; Ctrl+C / Ctrl+V paste copies; Ctrl+D duplicates', async ({ page, consoleErrors }) => {
  const id = await cloneOfPdlc(page.request, 'Keys');
  const graphOf = async () => (await page.request.get(`/studio/api/workflows/${id}/graph`)).json();
  const graph = await graphOf();
  const node = (key: string) => page.locator(`[data-testid="flow-node"][data-node-key="${key}"]`);
  const selected = page.locator('.react-flow__node.selected');
  await page.goto(`/studio/workflows/${id}`);
  await node('discover').click();
  await page.keyboard.press('Control+a');
  // the editor draws what is in view: at least the discover agent and its gate are selected
  await expect(selected.nth(1)).toBeAttached();
  expect(await page.evaluate(() => String(window.getSelection() ?? '')), 'no page text selected').toBe('');

  // copy the discover agent and its gate (the edge between them comes along), paste them
  const canvas = (await page.getByTestId('canvas').boundingBox())!;
  await page.mouse.click(canvas.x + 20, canvas.y + 20); // the empty pane: clears the selection
  await expect(selected).toHaveCount(0);
  await node('discover').click();
  await node('discover-gate').click({ modifiers: ['Control'] });
  await expect(selected).toHaveCount(2);
  await page.keyboard.press('Control+c');
  await page.keyboard.press('Control+v');
  await expect(page.getByTestId('dirty-indicator')).toHaveAttribute('data-dirty', 'true');
  // the pasted pair is selected now: Ctrl+D duplicates it
  await page.keyboard.press('Control+d');
  await page.getByTestId('save-graph').click();
  await expect(page.getByTestId('dirty-indicator')).toHaveAttribute('data-dirty', 'false');
  const saved = await graphOf();
  expect(saved.nodes).toHaveLength(graph.nodes.length + 4);
  const copy = saved.nodes.find((n: { node_key: string }) => n.node_key === 'discover_copy_1');
  const orig = saved.nodes.find((n: { node_key: string }) => n.node_key === 'discover');
  expect(copy.agent_id).toBe(orig.agent_id);
  expect(copy.stage_label).toBe('discover');
  expect(saved.edges).toContainEqual(
    expect.objectContaining({ from_node: 'discover_copy_1', to_node: 'discover-gate_copy_1' }),
  );
  expect(
    saved.nodes.map((n: { node_key: string }) => n.node_key),
    'the duplicate of the pasted copy',
  ).toContain('discover_copy_1_copy_1');
  expect(consoleErrors).toEqual([]);
});

test.describe('signed out', () => {
  test.use({ signedIn: false });

  test('sign-in does not offer to create the owner account once it exists; a missing workflow links back', async ({
    page,
    account,
    consoleErrors,
  }) => {
    const setup = page.waitForResponse((r) => r.url().includes('/auth/setup'));
    await page.goto('/studio/login');
    await setup;
    await expect(page.getByTestId('login-submit')).toBeVisible();
    await expect(page.getByTestId('setup-mode')).toHaveCount(0);
    await page.getByTestId('login-username').fill(account.username);
    await page.getByTestId('login-password').fill(account.password);
    await page.getByTestId('login-submit').click();
    await expect(page).not.toHaveURL(/\/studio\/login/);
    await page.goto('/studio/workflows/999999');
    await page.getByTestId('back-to-workflows').click();
    await expect(page.getByTestId('workflows-page')).toBeVisible();
    expect(consoleErrors.filter((e) => !/status of 404/.test(e))).toEqual([]);
  });
});
