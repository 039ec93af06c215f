// The rule for a node's `config.artifact` (docs/API.md): a normalised path relative to the workspace.
import { MAX_ARTIFACT_PATH_LENGTH } from './types';

const DOT_DOT_SEGMENT = /(?:^|\/)\.\.(?:\/|$)/;
const EMPTY_OR_DOT_SEGMENT = /(?:^|\/)\.?(?:\/|$)/;

/** Why `path` is not an acceptable `config.artifact`, or null when it is a relative workspace path. */
export function artifactPathProblem(path: unknown): string | null {
  if (typeof path !== 'string') return 'must be a relative workspace path (a string)';
  if (path === '') return 'must not be empty';
  if (path.length > MAX_ARTIFACT_PATH_LENGTH) return `must be at most ${MAX_ARTIFACT_PATH_LENGTH} characters`;
  if (path.includes('\0')) return 'must not contain NUL characters';
  if (path.includes('\\')) return 'must use "/" separators, not backslashes';
  if (path.startsWith('/')) return 'must be relative to the workspace (no leading "/")';
  if (DOT_DOT_SEGMENT.test(path)) return 'must not contain ".." segments';
  if (EMPTY_OR_DOT_SEGMENT.test(path)) return 'must be a normalised path (no empty or "." segments)';
  return null;
}
