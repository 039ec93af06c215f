/**
 * The workspace tools, registered in one table: name, description, JSON schema, handler (SPEC §7.3).
 * Paths go through the one shared helper (projects/workspace-path). A tool error is returned to the
 * model as a failed result; it never escapes the run. Tool output is data, never instructions.
 */
import { DomainError } from '../../platform/errors/domain-error';
import { normalizeWorkspaceDir, normalizeWorkspacePath } from '../projects/workspace-path';
import type { ToolSpec } from './providers/provider';
import type { FileChangeInfo, ToolName, Workspace } from './runtime.types';

export const MAX_TOOL_OUTPUT = 16 * 1024;
const MAX_FILE_BYTES = 1024 * 1024;
const DEFAULT_READ_LINES = 400;

export class ToolError extends Error {}

export interface ToolContext {
  workspace: Workspace;
  /** paths this turn wrote (so the runner knows whether the agent wrote its artifact itself) */
  written: Set<string>;
}

export interface ToolOutcome {
  ok: boolean;
  output: string;
  error?: string;
  files?: FileChangeInfo[];
}

interface ToolDef {
  spec: ToolSpec;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<{ output: string; files?: FileChangeInfo[] }>;
}

const str = (v: unknown, name: string): string => {
  if (typeof v !== 'string') throw new ToolError(`"${name}" must be a string`);
  return v;
};
const optInt = (v: unknown, name: string): number | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new ToolError(`"${name}" must be a non-negative integer`);
  return v;
};
const path = (v: unknown) => normalizeWorkspacePath(str(v, 'path'));

async function write(ctx: ToolContext, p: string, content: string) {
  if (ctx.workspace.readOnly) throw new ToolError('this workspace is read-only (demo): files cannot be written');
  if (Buffer.byteLength(content, 'utf8') > MAX_FILE_BYTES) throw new ToolError('a file is at most 1 MiB');
  const change = await ctx.workspace.write(p, content);
  ctx.written.add(change.path);
  return change;
}

const TOOLS: Record<ToolName, ToolDef> = {
  list_files: {
    spec: {
      name: 'list_files',
      description: 'List the files of the project workspace (optionally under a folder), with sizes.',
      parameters: { type: 'object', properties: { path: { type: 'string', description: 'folder, default the root' } }, additionalProperties: false },
    },
    async run(args, ctx) {
      const dir = normalizeWorkspaceDir(args.path);
      const files = await ctx.workspace.list(dir || undefined);
      if (!files.length) return { output: dir ? `No files under ${dir}/.` : 'The workspace is empty.' };
      return { output: files.map((f) => `${f.path} (${f.size} bytes, rev ${f.revision})`).join('\n') };
    },
  },
  read_file: {
    spec: {
      name: 'read_file',
      description: 'Read a text file of the workspace. offset and limit are in lines.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, offset: { type: 'integer', minimum: 0 }, limit: { type: 'integer', minimum: 1 } },
        required: ['path'],
        additionalProperties: false,
      },
    },
    async run(args, ctx) {
      const p = path(args.path);
      const offset = optInt(args.offset, 'offset') ?? 0;
      const limit = optInt(args.limit, 'limit') ?? DEFAULT_READ_LINES;
      const f = await ctx.workspace.read(p);
      if (!f) throw new ToolError(`no such file: ${p}`);
      const lines = f.content.split('\n');
      const slice = lines.slice(offset, offset + limit);
      const more = offset + limit < lines.length ? `\n… (${lines.length - offset - limit} more lines; read with offset ${offset + limit})` : '';
      return { output: slice.join('\n') + more };
    },
  },
  write_file: {
    spec: {
      name: 'write_file',
      description: 'Create or replace a text file of the workspace (at most 1 MiB). Every write keeps a revision.',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'], additionalProperties: false },
    },
    async run(args, ctx) {
      const change = await write(ctx, path(args.path), str(args.content, 'content'));
      return { output: `${change.change === 'added' ? 'Created' : 'Updated'} ${change.path} (revision ${change.revision}).`, files: [change] };
    },
  },
  edit_file: {
    spec: {
      name: 'edit_file',
      description: 'Replace one exact occurrence of `old` with `new` in a workspace file.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } },
        required: ['path', 'old', 'new'],
        additionalProperties: false,
      },
    },
    async run(args, ctx) {
      const p = path(args.path);
      const oldText = str(args.old, 'old');
      const newText = str(args.new, 'new');
      if (!oldText) throw new ToolError('"old" must not be empty');
      const f = await ctx.workspace.read(p);
      if (!f) throw new ToolError(`no such file: ${p}`);
      const first = f.content.indexOf(oldText);
      if (first < 0) throw new ToolError(`"old" was not found in ${p}`);
      if (f.content.indexOf(oldText, first + 1) >= 0) throw new ToolError(`"old" occurs more than once in ${p}; include more context`);
      const change = await write(ctx, p, f.content.slice(0, first) + newText + f.content.slice(first + oldText.length));
      return { output: `Edited ${p} (revision ${change.revision}).`, files: [change] };
    },
  },
  search_files: {
    spec: {
      name: 'search_files',
      description: 'Search the workspace files for text (case-insensitive). Returns path:line: text.',
      parameters: { type: 'object', properties: { query: { type: 'string' }, path: { type: 'string' } }, required: ['query'], additionalProperties: false },
    },
    async run(args, ctx) {
      const query = str(args.query, 'query');
      if (!query.trim()) throw new ToolError('"query" must not be empty');
      const hits = await ctx.workspace.search(query, normalizeWorkspaceDir(args.path) || undefined);
      if (!hits.length) return { output: `No matches for "${query}".` };
      return { output: hits.map((h) => `${h.path}:${h.line}: ${h.text}`).join('\n') };
    },
  },
};

export function toolSpecs(allowed: readonly ToolName[]): ToolSpec[] {
  return allowed.filter((n) => TOOLS[n]).map((n) => TOOLS[n].spec);
}

function truncate(s: string): string {
  if (Buffer.byteLength(s, 'utf8') <= MAX_TOOL_OUTPUT) return s;
  const cut = Buffer.from(s, 'utf8').subarray(0, MAX_TOOL_OUTPUT).toString('utf8').replace(/\uFFFD$/, '');
  return cut + '\n… (output truncated at 16 KiB)';
}

/** Runs one tool call. Never throws: every failure is a result with ok false. */
export async function runTool(name: string, args: Record<string, unknown>, allowed: readonly ToolName[], ctx: ToolContext, argumentsError?: string): Promise<ToolOutcome> {
  const def = (TOOLS as Record<string, ToolDef | undefined>)[name];
  if (!def || !allowed.includes(name as ToolName)) {
    const error = def ? `tool "${name}" is not allowed for this agent` : `unknown tool "${name}"`;
    return { ok: false, output: '', error };
  }
  if (argumentsError) return { ok: false, output: '', error: `the arguments are not valid JSON: ${argumentsError}` };
  try {
    const r = await def.run(args ?? {}, ctx);
    return { ok: true, output: truncate(r.output), files: r.files };
  } catch (e) {
    if (e instanceof ToolError || e instanceof DomainError) return { ok: false, output: '', error: e instanceof DomainError ? e.detail : e.message };
    return { ok: false, output: '', error: 'the tool failed unexpectedly' };
  }
}
