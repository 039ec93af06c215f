/**
 * The MCP servers page (docs/API.md "MCP tool servers"): add a server with a secret header, see its
 * tools (read through the API from a real MCP server built with the SDK, run here on 127.0.0.1), allow
 * one in a skill from the discovered tools, delete the server — the header value never shown.
 */
import { McpToolServer } from '../../api/test/support/mcp-tool-server';
import { expect, test } from './support/fixtures';

let tools: McpToolServer;
test.beforeAll(async () => {
  tools = await McpToolServer.start();
});
test.afterAll(async () => {
  await tools.close();
});

test('add an MCP server, see its tools, allow one in a skill, delete the server', async ({ page, consoleErrors }) => {
  await page.goto('/studio/mcp-servers');
  await page.getByTestId('mcp-servers-new').first().click();
  const form = page.getByTestId('mcp-server-form');
  await form.locator('input[name="name"]').fill('kit');
  await form.locator('input[name="url"]').fill(tools.url);
  await form.locator('textarea[name="headers"]').fill('Authorization: Bearer e2e-header-secret');
  await page.getByTestId('form-save').click();
  const row = page.locator('[data-testid="mcp-servers-row"][data-name="kit"]');
  await expect(row).toContainText('Authorization');

  await row.getByTestId('mcp-servers-edit').click();
  await expect(page.getByTestId('headers-stored')).toContainText('Authorization');
  const list = page.getByTestId('mcp-tools');
  await expect(list).toContainText('kit/echo');
  await expect(list).toContainText('Echo a text back.');
  await expect(page.locator('body')).not.toContainText('e2e-header-secret');
  expect(tools.headers.some((h) => h.authorization === 'Bearer e2e-header-secret')).toBe(true);
  await page.getByRole('button', { name: 'Cancel' }).click();

  await page.goto('/studio/skills');
  await page.getByTestId('skills-new').first().click();
  const skill = page.getByTestId('skill-form');
  await skill.locator('input[name="name"]').fill('Uses kit');
  await skill.locator('input[name="tool_allowlist"][value="kit/echo"]').check();
  await page.getByTestId('form-save').click();
  await expect(page.locator('[data-testid="skills-row"][data-name="Uses kit"]')).toBeVisible();
  const saved = (await (await page.request.get('/studio/api/skills')).json()).find(
    (s: { name: string }) => s.name === 'Uses kit',
  );
  expect(saved.tool_allowlist).toEqual(['kit/echo']);

  await page.goto('/studio/mcp-servers');
  await page.locator('[data-testid="mcp-servers-row"][data-name="kit"]').getByTestId('mcp-servers-delete').click();
  await page.locator('dialog[open] [data-testid="confirm-ok"]').click();
  await expect(page.locator('[data-testid="mcp-servers-row"][data-name="kit"]')).toHaveCount(0);
  expect(await (await page.request.get('/studio/api/mcp-servers')).json()).toEqual([]);
  expect(consoleErrors).toEqual([]);
});
