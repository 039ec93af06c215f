/**
 * Untrusted JSON helpers for the graph save body and the import document. The graph itself is
 * checked by `validateGraph` (shared with the studio canvas); this file checks what lies around it:
 * the top-level keys of a save, and keys that could pollute prototypes anywhere inside `config`.
 */
import type { FieldProblem } from '../../platform/errors/domain-error';

export type JsonObject = Record<string, unknown>;

/** Keys refused anywhere in user JSON we keep: they mean nothing to us and are classic pollution vectors. */
export const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
/** Nesting allowed inside a node's `config`. */
export const MAX_CONFIG_DEPTH = 32;
const SAFE_FIELD_NAME = /^[A-Za-z0-9_$-]{1,64}$/;

export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** An own property only: an inherited `constructor` never counts as present. */
export function own(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** `path.key`, or just `path` when the key is not a tidy identifier (the message quotes it). */
export function fieldPath(path: string, key: string): string {
  if (!SAFE_FIELD_NAME.test(key)) return path || 'body';
  return path ? `${path}.${key}` : key;
}

export function quoteKey(key: string): string {
  return JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key);
}

/** Problems for `__proto__` / `constructor` / `prototype` keys and excessive nesting inside `value`. */
export function unsafeKeyProblems(value: unknown, path: string, out: FieldProblem[], depth = 0): void {
  if (Array.isArray(value)) {
    if (depth >= MAX_CONFIG_DEPTH) {
      out.push({ field: path, message: `is nested more than ${MAX_CONFIG_DEPTH} levels deep` });
      return;
    }
    value.forEach((v, i) => unsafeKeyProblems(v, `${path}[${i}]`, out, depth + 1));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (depth >= MAX_CONFIG_DEPTH) {
    out.push({ field: path, message: `is nested more than ${MAX_CONFIG_DEPTH} levels deep` });
    return;
  }
  for (const key of Object.keys(value)) {
    if (UNSAFE_KEYS.has(key)) {
      out.push({ field: path, message: `the key ${quoteKey(key)} is not allowed` });
      continue;
    }
    unsafeKeyProblems((value as JsonObject)[key], fieldPath(path, key), out, depth + 1);
  }
}

export interface SaveGraphBody {
  /** `{nodes, edges}` exactly as sent, for validateGraph. */
  graph: { nodes: unknown; edges: unknown };
  /** The version the edit started from; null = save without a check. */
  version: number | null;
}

const SAVE_KEYS: ReadonlySet<string> = new Set(['nodes', 'edges', 'version']);

/**
 * Reads PUT …/graph: only `nodes`, `edges` and `version` are known; the rest is validateGraph's job.
 * `body` is null only when the input is not an object; `errors` are to be reported with validateGraph's.
 */
export function readSaveGraphBody(body: unknown): { body: SaveGraphBody | null; errors: FieldProblem[] } {
  const errors: FieldProblem[] = [];
  if (!isPlainObject(body))
    return { body: null, errors: [{ field: 'body', message: 'must be an object with nodes and edges' }] };
  for (const key of Object.keys(body)) {
    if (!SAVE_KEYS.has(key)) errors.push({ field: fieldPath('', key), message: `unknown field ${quoteKey(key)}` });
  }
  const rawVersion = own(body, 'version');
  let version: number | null = null;
  if (rawVersion !== undefined && rawVersion !== null) {
    if (typeof rawVersion !== 'number' || !Number.isSafeInteger(rawVersion) || rawVersion < 1) {
      errors.push({ field: 'version', message: 'must be a positive integer (the version the edit started from)' });
    } else {
      version = rawVersion;
    }
  }
  const nodes = own(body, 'nodes');
  if (Array.isArray(nodes)) {
    nodes.forEach((node, i) => {
      if (isPlainObject(node)) unsafeKeyProblems(own(node, 'config'), `nodes[${i}].config`, errors);
    });
  }
  return { body: { graph: { nodes, edges: own(body, 'edges') }, version }, errors };
}
