/**
 * A fresh install (issue 13, "Deliver"): with no admin account configured, the studio opens on the
 * owner-account form, and once the owner exists it offers sign-in. A server of its own (the shared one
 * has an admin).
 */
import { expect, test } from './support/fixtures';

test.use({ serverConfig: { env: { ADMIN_USERNAME: '', ADMIN_PASSWORD: '' } }, signedIn: false });

test('a fresh install opens on the owner-account form; creating it signs in', async ({ page, consoleErrors }) => {
  await page.goto('/studio');
  await expect(page.getByTestId('login-password-confirm')).toBeVisible();
  await expect(page.locator('h1')).toHaveText(/Create the owner account/);
  await page.getByTestId('login-username').fill('owner');
  await page.getByTestId('login-password').fill('owner-password-1');
  await page.getByTestId('login-password-confirm').fill('owner-password-1');
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('overview-page')).toBeVisible();
  expect(new URL(page.url()).pathname).toBe('/studio');
  // signed out again, the same page now offers sign-in: the owner exists
  await page.context().clearCookies();
  await page.goto('/studio/login');
  await expect(page.getByTestId('login-form')).toBeVisible();
  await expect(page.locator('h1')).toHaveText(/Sign in/);
  await expect(page.getByTestId('login-password-confirm')).toHaveCount(0);
  expect(consoleErrors.filter((e) => !/401/.test(e))).toEqual([]);
});
