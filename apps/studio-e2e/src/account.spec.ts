/**
 * Personal access tokens and (for admins) users in the studio (issue 13): a token is shown once, works
 * as a Bearer credential and stops working when revoked; an admin adds and deletes users, anyone else
 * sees no Users page.
 */
import { randomBytes } from 'node:crypto';
import { ADMIN } from './support/server-env';
import { expect, test } from './support/fixtures';

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
]) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test(`create, use and revoke an access token (${viewport.width}px)`, async ({
      page,
      playwright,
      baseURL,
      consoleErrors,
    }, testInfo) => {
      await page.goto('/studio');
      await page.getByTestId('nav-tokens').click();
      await expect(page.getByTestId('tokens-page')).toBeVisible();
      await page.getByTestId('token-name').fill('CI pipeline');
      await page.getByTestId('token-create').click();
      const value = (await page.getByTestId('token-value').textContent())!.trim();
      expect(value.length).toBeGreaterThan(20);
      const row = page.locator('[data-testid="token-row"][data-name="CI pipeline"]');
      await expect(row).toContainText('never');
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.screenshot({ path: testInfo.outputPath(`tokens-${viewport.width}.png`) });

      // the token is a credential on its own (no cookie)
      const bare = await playwright.request.newContext({ baseURL });
      const auth = { Authorization: `Bearer ${value}` };
      expect((await bare.get('/auth/me', { headers: auth })).status()).toBe(200);

      // shown once: after a reload only its name remains
      await page.reload();
      await expect(row).toBeVisible();
      await expect(page.getByTestId('token-value')).toHaveCount(0);
      await row.getByTestId('token-revoke').click();
      await page.locator('dialog[open] [data-testid="confirm-ok"]').click();
      await expect(row).toHaveCount(0);
      expect((await bare.get('/auth/me', { headers: auth })).status()).toBe(401);
      await bare.dispose();
      expect(consoleErrors).toEqual([]);
    });
  });
}

test('a user who is not an admin has no Users page', async ({ page, consoleErrors }) => {
  await page.goto('/studio');
  await expect(page.getByTestId('nav-workflows')).toBeVisible();
  await expect(page.getByTestId('nav-users')).toHaveCount(0);
  await page.goto('/studio/users');
  await expect(page.getByTestId('users-page')).toContainText('Administrators only');
  expect(consoleErrors.filter((e) => !/status of 403/.test(e))).toEqual([]);
});

test.describe('as the admin', () => {
  test.use({ signedIn: false });

  test('an admin adds a user, who can sign in, then deletes them', async ({
    page,
    playwright,
    baseURL,
    consoleErrors,
  }, testInfo) => {
    expect((await page.request.post('/auth/login', { data: ADMIN })).status()).toBe(200);
    await page.goto('/studio');
    await page.getByTestId('nav-users').click();
    const username = `added-${randomBytes(3).toString('hex')}`;
    await page.getByTestId('user-name').fill(username);
    await page.getByTestId('user-password').fill('short');
    await page.getByTestId('user-create').click();
    // the problem shows beside the password field
    await expect(page.getByTestId('user-password')).toHaveAttribute('aria-invalid', 'true');
    await page.getByTestId('user-password').fill('a-good-password-1');
    await page.getByTestId('user-create').click();
    const row = page.locator(`[data-testid="user-row"][data-username="${username}"]`);
    await expect(row).toContainText('User');
    await expect(page.locator(`[data-testid="user-row"][data-username="${ADMIN.username}"]`)).toContainText('(you)');
    // the row's actions sit on one line
    const boxes = await Promise.all(
      ['user-role', 'user-reset', 'user-delete'].map(async (id) => (await row.getByTestId(id).boundingBox())!.y),
    );
    expect(new Set(boxes.map(Math.round)).size).toBe(1);
    await page.screenshot({ path: testInfo.outputPath('users.png') });

    const them = await playwright.request.newContext({ baseURL });
    expect((await them.post('/auth/login', { data: { username, password: 'a-good-password-1' } })).status()).toBe(200);
    // they own a model: the delete says so and offers to delete it too
    const model = { label: 'Their model', provider: 'vendor_a', model_id: 'gpt-4o-mini' };
    expect((await them.post('/studio/api/models', { data: model })).status()).toBe(201);

    // admin role and a new password
    await row.getByTestId('user-role').click();
    await expect(row).toContainText('Administrator');
    await row.getByTestId('user-role').click();
    await expect(row).not.toContainText('Administrator');
    await row.getByTestId('user-reset').click();
    await page.getByTestId('user-new-password').fill('another-password-2');
    await page.locator('dialog[open] [data-testid="confirm-ok"]').click();
    await expect(page.getByTestId('toasts')).toContainText('New password set');
    expect((await them.get('/auth/me')).status(), 'a new password ends their session').toBe(401);
    expect((await them.post('/auth/login', { data: { username, password: 'another-password-2' } })).status()).toBe(200);
    await them.dispose();

    await row.getByTestId('user-delete').click();
    const dialog = page.locator('dialog[open]');
    await dialog.getByTestId('confirm-ok').click();
    await expect(dialog.getByTestId('user-owns')).toContainText('owns 1 model');
    await expect(dialog.getByTestId('user-owns')).not.toContainText('cascade');
    await expect(dialog.getByTestId('confirm-ok')).toHaveText('Delete the user and everything they own');
    await dialog.getByTestId('confirm-ok').click();
    await expect(row).toHaveCount(0);
    const again = await playwright.request.newContext({ baseURL });
    expect((await again.post('/auth/login', { data: { username, password: 'another-password-2' } })).status()).toBe(
      401,
    );
    await again.dispose();
    expect(consoleErrors.filter((e) => !/status of (400|409)/.test(e))).toEqual([]);
  });
});
