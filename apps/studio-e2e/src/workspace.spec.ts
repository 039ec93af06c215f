/**
 * The login redirect, the public demo, and the typical workspace flow on the offline provider, against
 * the real production server and database.
 */
import { pdlcPackId } from './support/api';
import { expect, test } from './support/fixtures';

test.describe('signed out', () => {
  test.use({ signedIn: false });

  test('an anonymous visitor is sent to the login page and back', async ({ page, account, consoleErrors }) => {
    await page.goto('/studio/agents');
    await expect(page).toHaveURL(/\/studio\/login\?next=%2Fstudio%2Fagents/);
    await page.getByTestId('login-username').fill(account.username);
    await page.getByTestId('login-password').fill(account.password);
    await page.getByTestId('login-submit').click();
    await expect(page).toHaveURL(/\/studio\/agents$/);
    await expect(page.getByTestId('agents-page')).toBeVisible();
    expect(consoleErrors.filter((e) => !e.includes('401'))).toEqual([]);
  });

  test('the public demo answers without login', async ({ page, consoleErrors }) => {
    await page.goto('/demo');
    await expect(page.getByTestId('demo-page')).toBeVisible();
    await page.getByTestId('chat-input').fill('We want an app for shared flat expenses');
    await page.getByTestId('chat-send').click();
    await expect(page.getByTestId('demo-reply').filter({ hasText: 'No language model is configured' })).toBeVisible();
    await expect(page.getByTestId('tool-card').first()).toBeVisible();
    expect(consoleErrors).toEqual([]);
  });
});

test('workspace flow: project, streamed chat with tool cards, artifact, gate approval', async ({
  page,
  consoleErrors,
}) => {
  await page.goto(`/studio/workflows/${await pdlcPackId(page.request)}/run`);
  await expect(page.getByTestId('run-page')).toBeVisible();
  await page.getByTestId('project-new').click();
  await page.getByTestId('project-name').fill('Budget app');
  await page.getByTestId('project-slug').fill('budget-app');
  await page.getByTestId('project-create').click();
  await expect(page.getByTestId('stage-strip')).toBeVisible();
  await expect(page.getByTestId('stage-discover')).toHaveAttribute('data-state', 'current');
  await page.getByTestId('chat-input').fill('Students lose track of shared expenses');
  await page.getByTestId('chat-send').click();
  // while streaming the reply is the live turn; once done it becomes a history message
  await expect(
    page
      .locator('[data-testid="assistant-text"], [data-testid="chat-message"][data-role="assistant"]')
      .filter({ hasText: 'No language model is configured' })
      .first(),
  ).toBeVisible();
  await expect(page.locator('[data-testid="tool-card"][data-tool="write_file"]').first()).toBeVisible();
  await expect(page.locator('[data-testid="tool-card"][data-tool="list_files"]').first()).toBeVisible();
  await expect(page.getByTestId('gate-banner')).toBeVisible();
  const artifact = page.locator('[data-testid="file-item"][data-path="docs/discovery.md"]');
  await artifact.click();
  await expect(page.getByTestId('file-content')).toContainText('Students lose track of shared expenses');
  await page.getByTestId('gate-approve').click();
  await expect(page.getByTestId('stage-design')).toHaveAttribute('data-state', 'current');
  const state = await (await page.request.get('/agent/workflows/budget-app')).json();
  expect(state.stage).toBe('design');
  expect(state.awaiting_gate).toBeNull();
  await page.reload();
  await expect(
    page.getByTestId('chat-message').filter({ hasText: 'Students lose track of shared expenses' }).first(),
  ).toBeVisible();
  expect(consoleErrors).toEqual([]);
});
