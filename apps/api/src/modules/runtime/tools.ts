/**
 * The workspace tools (docs/API.md), registered in one table: name, description, JSON schema, handler.
 *
 * Paths go through THE shared helper (projects/workspace-path): `..`, absolute paths, NUL, control
 * characters and backslashes are refused. Every failure — a bad path, a missing file, a tool the agent
 * may not use, a read-only workspace, a file over 1 MiB, a full workspace — comes back as a failed tool
 * result (`{ok: false, error}`) that the model sees; nothing a tool does is thrown out of the run.
 * Tool output is data: it goes back to the model as a tool result and is never parsed for instructions.
 */
import { Logger } from '@nestjs/common';
import { DomainError } from '../../platform/errors/domain-error';
import { errorInfo } from '../../platform/logging/error-info';
import { normalizeWorkspaceDir, normalizeWorkspacePath } from '../projects/workspace-path';
import type { ToolSpec } from './providers/provider';
import { TOOL_NAMES, type FileChangeInfo, type ToolName, type Workspace } from './runtime.types';

/** `tool_result.output` (and what the model is sent) is cut at 16 KiB. */
export const MAX_TOOL_OUTPUT_BYTES = 16 * 1024;
/** A workspace file is at most 1 MiB. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** read_file returns this many lines when no `limit` is given, and never more than MAX_READ_LINES. */
export const DEFAULT_READ_LINES = 400;
export const MAX_READ_LINES = 2000;
/** search_files reports at most this many matching lines. */
export const MAX_SEARCH_HITS = 100;

export const WRITING_TOOLS: readonly ToolName[] = ['write_file', 'edit_file'];

/** A failure the model should see (bad arguments, missing file, …). */
export class ToolError extends Error {}

export interface ToolContext {
  workspace: Workspace;
  /** the tools this agent may use (already the union of its own and its skills' allowlists) */
  allowed: readonly ToolName[];
  /** normalised paths written during this agent's run, so the runner knows whether it wrote its artifact */
  written: Set<string>;
}

export interface ToolOutcome {
  ok: boolean;
  /** what the tool produced (truncated to 16 KiB); '' on failure */
  output: string;
  error?: string;
  files?: FileChangeInfo[];
}

export interface ToolDefinition {
  name: ToolName;
  description: string;
  /** JSON schema of the arguments object */
  parameters: Record<string, unknown>;
  handler(args: Record<string, unknown>, ctx: ToolContext): Promise<{ output: string; files?: FileChangeInfo[] }>;
}

// ---------------------------------------------------------------------------------------------
// argument helpers

function str(args: Record<string, unknown>, name: string): string {
  const v = args[name];
  if (typeof v !== 'string') throw new ToolError(`"${name}" is required and must be a string`);
  return v;
}

function optLines(args: Record<string, unknown>, name: string, min: number): number | undefined {
  const v = args[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
    throw new ToolError(`"${name}" must be an integer ≥ ${min}`);
  return v;
}

const filePath = (args: Record<string, unknown>) => normalizeWorkspacePath(args.path);
const dirPath = (args: Record<string, unknown>) => normalizeWorkspaceDir(args.path);

async function writeChecked(ctx: ToolContext, path: string, content: string): Promise<FileChangeInfo> {
  if (ctx.workspace.readOnly) throw new ToolError('this workspace is read-only: files cannot be written here');
  const size = Buffer.byteLength(content, 'utf8');
  if (size > MAX_FILE_BYTES)
    throw new ToolError(`a file is at most 1 MiB (1048576 bytes); this content is ${size} bytes`);
  const change = await ctx.workspace.write(path, content);
  ctx.written.add(change.path);
  return change;
}

function plural(n: number, word: string) {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

// ---------------------------------------------------------------------------------------------
// the table

export const TOOLS: Readonly<Record<ToolName, ToolDefinition>> = {
  list_files: {
    name: 'list_files',
    description:
      'List the files of the project workspace, optionally only those under a folder. One line per file: path (size in bytes, revision).',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'a folder relative to the workspace root; omit for the whole workspace' },
      },
      additionalProperties: false,
    },
    async handler(args, ctx) {
      const dir = dirPath(args);
      const files = await ctx.workspace.list(dir || undefined);
      if (!files.length) return { output: dir ? `No files under ${dir}/.` : 'The workspace is empty.' };
      return { output: files.map((f) => `${f.path} (${f.size} bytes, rev ${f.revision})`).join('\n') };
    },
  },

  read_file: {
    name: 'read_file',
    description: `Read a text file of the workspace. offset (0-based) and limit are in lines; at most ${MAX_READ_LINES} lines and 16 KiB are returned per call.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'file path relative to the workspace root' },
        offset: { type: 'integer', minimum: 0, description: 'first line to return (0-based), default 0' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_READ_LINES,
          description: `number of lines, default ${DEFAULT_READ_LINES}`,
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
    async handler(args, ctx) {
      const path = filePath(args);
      const offset = optLines(args, 'offset', 0) ?? 0;
      const limit = Math.min(optLines(args, 'limit', 1) ?? DEFAULT_READ_LINES, MAX_READ_LINES);
      const file = await ctx.workspace.read(path);
      if (!file) throw new ToolError(`no such file: ${path}`);
      const lines = file.content.split('\n');
      if (offset > 0 && offset >= lines.length)
        throw new ToolError(`${path} has ${plural(lines.length, 'line')}; offset ${offset} is past its end`);
      const end = Math.min(lines.length, offset + limit);
      const rest = lines.length - end;
      const more = rest > 0 ? `\n… (${plural(rest, 'more line')}; continue with offset ${end})` : '';
      return { output: lines.slice(offset, end).join('\n') + more };
    },
  },

  write_file: {
    name: 'write_file',
    description:
      'Create a text file in the workspace or replace its whole content (at most 1 MiB). Every write keeps the previous revision.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'file path relative to the workspace root, e.g. docs/plan.md' },
        content: { type: 'string', description: 'the complete new content' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    async handler(args, ctx) {
      const path = filePath(args);
      const change = await writeChecked(ctx, path, str(args, 'content'));
      if (change.change === 'unchanged')
        return { output: `${change.path} already had this content (revision ${change.revision}); nothing changed.` };
      return landedOutcome('write_file', change)!;
    },
  },

  edit_file: {
    name: 'edit_file',
    description:
      'Replace one exact occurrence of `old` with `new` in a workspace file. `old` must occur exactly once; include enough surrounding text to make it unique.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'file path relative to the workspace root' },
        old: { type: 'string', description: 'the exact text to replace (must occur exactly once)' },
        new: { type: 'string', description: 'the replacement text' },
      },
      required: ['path', 'old', 'new'],
      additionalProperties: false,
    },
    async handler(args, ctx) {
      const path = filePath(args);
      const oldText = str(args, 'old');
      const newText = str(args, 'new');
      if (!oldText) throw new ToolError('"old" must not be empty');
      if (ctx.workspace.readOnly) throw new ToolError('this workspace is read-only: files cannot be written here');
      const file = await ctx.workspace.read(path);
      if (!file) throw new ToolError(`no such file: ${path}`);
      const first = file.content.indexOf(oldText);
      if (first < 0) throw new ToolError(`"old" was not found in ${path}`);
      if (file.content.indexOf(oldText, first + 1) >= 0)
        throw new ToolError(`"old" occurs more than once in ${path}; include more surrounding text so it is unique`);
      const change = await writeChecked(
        ctx,
        path,
        file.content.slice(0, first) + newText + file.content.slice(first + oldText.length),
      );
      if (change.change === 'unchanged')
        return { output: `${change.path} already had this content (revision ${change.revision}); nothing changed.` };
      return landedOutcome('edit_file', change)!;
    },
  },

  search_files: {
    name: 'search_files',
    description: `Search the workspace files for a text (case-insensitive), optionally only under a folder. One line per match: path:line: text (at most ${MAX_SEARCH_HITS} matches).`,
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'the text to look for' },
        path: { type: 'string', description: 'a folder to search in; omit for the whole workspace' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    async handler(args, ctx) {
      const query = str(args, 'query');
      if (!query.trim()) throw new ToolError('"query" must not be empty');
      const dir = dirPath(args);
      const hits = await ctx.workspace.search(query, dir || undefined);
      if (!hits.length) return { output: `No matches for "${query}"${dir ? ` under ${dir}/` : ''}.` };
      const shown = hits
        .slice(0, MAX_SEARCH_HITS)
        .map((h) => `${h.path}:${h.line}: ${h.text.length > 300 ? h.text.slice(0, 300) + '…' : h.text}`);
      if (hits.length > MAX_SEARCH_HITS)
        shown.push(`… (${hits.length - MAX_SEARCH_HITS} more matches; narrow the query or the folder)`);
      return { output: shown.join('\n') };
    },
  },
};

/** Tools offered to the model: the agent's allowlist, minus the writing tools on a read-only workspace. */
export function offeredTools(allowed: readonly ToolName[], readOnly: boolean): ToolName[] {
  return TOOL_NAMES.filter((n) => allowed.includes(n) && !(readOnly && WRITING_TOOLS.includes(n)));
}

export function toolSpecs(names: readonly ToolName[]): ToolSpec[] {
  return names.map((n) => ({
    name: TOOLS[n].name,
    description: TOOLS[n].description,
    parameters: TOOLS[n].parameters,
  }));
}

/** Cuts a string to at most `max` UTF-8 bytes (never inside a character) and says so. */
export function truncateOutput(s: string, max = MAX_TOOL_OUTPUT_BYTES): string {
  if (Buffer.byteLength(s, 'utf8') <= max) return s;
  const note = '\n… (output truncated at 16 KiB)';
  const budget = max - Buffer.byteLength(note, 'utf8');
  const cut = Buffer.from(s, 'utf8')
    .subarray(0, budget)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
  return cut + note;
}

/** Runs one tool call. Never throws: every failure is a result with `ok: false` and an error the model can read. */
export async function runTool(
  name: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
  argumentsError?: string,
): Promise<ToolOutcome> {
  const def = Object.prototype.hasOwnProperty.call(TOOLS, name) ? TOOLS[name as ToolName] : undefined;
  if (!def) return fail(`unknown tool "${truncateText(name, 64)}"; the tools are ${TOOL_NAMES.join(', ')}`);
  if (!ctx.allowed.includes(def.name)) return fail(`the tool "${def.name}" is not allowed for this agent`);
  if (argumentsError) return fail(argumentsError);
  try {
    const r = await def.handler(args && typeof args === 'object' ? args : {}, ctx);
    return { ok: true, output: truncateOutput(r.output), ...(r.files?.length ? { files: r.files } : {}) };
  } catch (e) {
    if (e instanceof ToolError) return fail(e.message);
    // DomainErrors come from the shared path helper and the workspace (bad path, 1 MiB, 10,000 files).
    if (e instanceof DomainError) return fail(e.detail);
    // not a refusal the model should see: a bug or an infrastructure failure, logged with stack and cause
    new Logger('Tools').error({ err: errorInfo(e), tool: def.name }, 'tool failed unexpectedly');
    return fail(`the ${def.name} tool failed unexpectedly`);
  }
}

function fail(error: string): ToolOutcome {
  return { ok: false, output: '', error: truncateOutput(error, 2048) };
}

function truncateText(s: string, n: number) {
  return s.length > n ? s.slice(0, n) + '…' : s;
}

/**
 * What a writing tool answers for the change it made — also for a write a resumed run finds already
 * landed (by its idempotency key), so the model sees the same result. Null for any other tool.
 */
export function landedOutcome(name: string, change: FileChangeInfo): ToolOutcome | null {
  const where = `${change.path} (revision ${change.revision})`;
  if (name === 'write_file')
    return { ok: true, output: `${change.change === 'added' ? 'Created' : 'Updated'} ${where}.`, files: [change] };
  if (name === 'edit_file') return { ok: true, output: `Edited ${where}.`, files: [change] };
  return null;
}

/** What the model is sent as the tool message: the output itself, or `{"ok":false,"error":…}`. */
export function toolMessageContent(outcome: ToolOutcome): string {
  return outcome.ok ? outcome.output : JSON.stringify({ ok: false, error: outcome.error ?? 'failed' });
}
