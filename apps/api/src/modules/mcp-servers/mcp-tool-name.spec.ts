import { isMcpToolName, splitMcpToolName } from './mcp-tool-name';

describe('MCP tool names in allowlists', () => {
  test('server/tool with the MCP tool-name alphabet', () => {
    expect(isMcpToolName('docs/search')).toBe(true);
    expect(isMcpToolName('git-hub/issues.list_open-2')).toBe(true);
    expect(splitMcpToolName('git-hub/issues.list')).toEqual({ server: 'git-hub', tool: 'issues.list' });
  });

  test('refuses workspace names, bad servers and bad tools', () => {
    for (const bad of ['read_file', '/tool', 'Docs/x', 'docs/', 'docs/a b', 'docs/a/b', '-x/y', `s/${'a'.repeat(129)}`])
      expect(isMcpToolName(bad)).toBe(false);
  });
});
