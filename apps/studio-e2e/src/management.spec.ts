/**
 * Management in the studio (issue 13 item 6): name a clone, rename a workflow and edit its stages,
 * rename and delete a project, delete a file — each checked against the API afterwards.
 */
import { pdlcProject } from './support/api';
import { expect, test } from './support/fixtures';

test('name a clone, rename it, add a stage; a stage still in use cannot be removed', async ({
  page,
  consoleErrors,
}) => {
  const stagesOf = async (slug: string): Promise<string[]> =>
    (await (await page.request.get('/studio/api/workflows')).json()).find((w: { slug: string }) => w.slug === slug)
      .stages;
  await page.goto('/studio/workflows');
  await page.locator('[data-testid="workflows-row"][data-slug="pdlc"]').getByTestId('workflow-clone').click();
  await expect(page.getByTestId('clone-name')).toHaveValue('Product Development Lifecycle (copy)');
  await page.getByTestId('clone-name').fill('Team PDLC');
  await page.getByTestId('clone-slug').fill('team-pdlc');
  await page.getByTestId('clone-save').click();
  const row = page.locator('[data-testid="workflows-row"][data-slug="team-pdlc"]');
  await expect(row).toHaveAttribute('data-name', 'Team PDLC');

  await row.getByTestId('workflow-settings').click();
  await page.getByTestId('workflow-settings-name').fill('Team PDLC, revised');
  const stages = page.getByTestId('workflow-settings-stages');
  await stages.fill(`${await stages.inputValue()}\nretro`);
  await page.getByTestId('form-save').click();
  await expect(row).toHaveAttribute('data-name', 'Team PDLC, revised');
  expect(await stagesOf('team-pdlc')).toEqual(['discover', 'design', 'develop', 'test', 'deploy', 'iterate', 'retro']);

  await row.getByTestId('workflow-settings').click();
  await page.getByTestId('workflow-settings-stages').fill('design\ndevelop\ntest\ndeploy\niterate\nretro');
  await page.getByTestId('form-save').click();
  await expect(page.locator('[data-testid="workflow-settings-form"] .field-error').first()).toBeVisible();
  expect(await stagesOf('team-pdlc')).toContain('discover');
  expect(consoleErrors.filter((e) => !/status of 400/.test(e))).toEqual([]);
});

test('rename and delete a project, delete one of its files', async ({ page, consoleErrors }) => {
  const packId = await pdlcProject(page.request, 'tidy');
  expect(
    (
      await page.request.put('/studio/api/projects/tidy/files/docs/old.md', { data: { content: '# Old notes' } })
    ).status(),
  ).toBe(200);
  await page.goto(`/studio/workflows/${packId}/run?project=tidy`);

  await page.getByTestId('project-rename').click();
  await page.getByTestId('project-rename-name').fill('Tidy flat');
  await page.getByTestId('project-rename-save').click();
  await expect(page.locator('[data-testid="project-select"] option', { hasText: 'Tidy flat (tidy)' })).toBeAttached();
  expect((await (await page.request.get('/studio/api/projects/tidy')).json()).name).toBe('Tidy flat');

  const file = page.locator('[data-testid="file-item"][data-path="docs/old.md"]');
  await file.click();
  await page.getByTestId('file-delete').click();
  await page.locator('dialog[open] [data-testid="confirm-ok"]').click();
  await expect(file).toHaveCount(0);
  expect((await page.request.get('/studio/api/projects/tidy/files/docs/old.md')).status()).toBe(404);

  await page.getByTestId('project-delete').click();
  await page.locator('dialog[open] [data-testid="confirm-ok"]').click();
  await expect(page).not.toHaveURL(/project=/);
  expect((await page.request.get('/studio/api/projects/tidy')).status()).toBe(404);
  await expect(page.locator('[data-testid="project-select"] option', { hasText: 'Tidy flat' })).toHaveCount(0);
  // A read already on the wire when the delete lands may still come back 404 (seen once on CI's
  // Postgres pass); the studio cancels reads of what it deletes, and no other console error is allowed.
  expect(consoleErrors.filter((e) => !/status of 404/.test(e))).toEqual([]);
});
