/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser). Each test gets a fresh
 * context; console errors are collected so tests can assert there are none; a failing test leaves a
 * screenshot in test-results/e2e/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ADMIN } from './server';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const shots = join(__dirname, '../../../../test-results/e2e');

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface PageHandle {
  page: Page;
  context: BrowserContext;
  consoleErrors: string[];
  close(): Promise<void>;
}

export async function openPage(browser: Browser, t: TestContext, viewport = { width: 1280, height: 800 }): Promise<PageHandle> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  return {
    page,
    context,
    consoleErrors,
    async close() {
      await context.close();
    },
  };
}

/** Runs `fn` with a fresh page; on failure saves a screenshot named after the test. */
export async function withPage(browser: Browser, t: TestContext, fn: (h: PageHandle) => Promise<void>, viewport?: { width: number; height: number }) {
  const h = await openPage(browser, t, viewport);
  try {
    await fn(h);
  } catch (e) {
    mkdirSync(shots, { recursive: true });
    const file = join(shots, t.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 80) + '.png');
    await h.page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    throw new Error(`${(e as Error).message}\n(screenshot: ${file})`, { cause: e });
  } finally {
    await h.close();
  }
}

export async function login(page: Page, base: string, user = ADMIN) {
  await page.goto(base + '/studio/login');
  await page.getByLabel(/username/i).fill(user.username);
  await page.getByLabel(/password/i).first().fill(user.password);
  await page.getByRole('button', { name: /log in|sign in/i }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/studio/login'));
}
