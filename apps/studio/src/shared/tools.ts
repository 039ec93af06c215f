// The tool names an agent or skill may be allowed to use (docs/API.md).
import type { ToolName } from './api-types';

export const TOOL_NAMES: readonly ToolName[] = ['list_files', 'read_file', 'write_file', 'edit_file', 'search_files'];

export const TOOL_DESCRIPTIONS: Record<ToolName, string> = {
  list_files: 'List workspace files',
  read_file: 'Read a file',
  write_file: 'Create or overwrite a file',
  edit_file: 'Replace text in a file',
  search_files: 'Search file contents',
};
