/**
 * THE one path helper for workspace files (the HTTP file API and the agent tools alike): relative
 * paths only, no `..`, no absolute or drive paths, no backslashes, NUL or control characters. Input is
 * taken literally (no URL decoding: `%2e%2e` is a harmless file name). Containment is decided on the
 * normalised path, segment by segment — never by string prefix on the raw input.
 */
import { DomainError } from '../../platform/errors/domain-error';

export const MAX_PATH = 512;

export class WorkspacePathError extends DomainError {
  constructor(message: string, field = 'path') {
    super('validation', `Invalid workspace path: ${message}.`, [{ field, message }]);
  }
}

// C0 controls (NUL included), DEL and C1 controls.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * `a//b` → `a/b`, `./a/./b` → `a/b`, a trailing `/` is dropped; anything that could leave the
 * workspace or be read differently by another component is refused with a `WorkspacePathError` (400).
 */
export function normalizeWorkspacePath(input: unknown, field = 'path'): string {
  if (typeof input !== 'string') throw new WorkspacePathError('must be a string', field);
  if (input.length === 0) throw new WorkspacePathError('must not be empty', field);
  if (input.length > MAX_PATH) throw new WorkspacePathError(`must be at most ${MAX_PATH} characters`, field);
  if (CONTROL.test(input)) throw new WorkspacePathError('must not contain NUL or control characters', field);
  if (input.includes('\\')) throw new WorkspacePathError('must use "/" separators, not backslashes', field);
  if (input.startsWith('/') || /^[A-Za-z]:/.test(input))
    throw new WorkspacePathError('must be relative to the workspace', field);
  const segments: string[] = [];
  for (const seg of input.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') throw new WorkspacePathError('must not contain ".." segments', field);
    segments.push(seg);
  }
  if (!segments.length) throw new WorkspacePathError('must name a file', field);
  return segments.join('/');
}

/** Normalises an optional directory: absent, `""`, `.` or `./` mean the workspace root (`""`). */
export function normalizeWorkspaceDir(input: unknown, field = 'path'): string {
  if (input === undefined || input === null || input === '' || input === '.' || input === './') return '';
  return normalizeWorkspacePath(input, field);
}

/** True when `path` is `dir` itself or inside it, by whole segments (`docs` does not contain `docs2/x`). */
export function isInside(dir: string, path: string): boolean {
  if (!dir) return true;
  return path === dir || path.startsWith(dir + '/');
}
