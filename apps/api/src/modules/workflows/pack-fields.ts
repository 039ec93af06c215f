// The field readers pack import checks an untrusted document with: exact key sets, typed and bounded
// values, unique refs. Each reports into one capped problem list and returns a safe fallback.
import type { FieldProblem } from '../../platform/errors/domain-error';
import { isMcpToolName } from '../mcp-servers/mcp-tool-name';
import { TOOL_NAMES } from '../runtime/runtime.types';
import { MAX_TOOLS } from '../skills/tool-allowlist';
import { fieldPath, isPlainObject, own, quoteKey, type JsonObject } from './graph-body';
import { REF_PATTERN } from './pack-format';

export const MAX_PROBLEMS = 100;

export class Problems {
  readonly list: FieldProblem[] = [];
  private count = 0;
  add(field: string, message: string): void {
    this.count++;
    if (this.count <= MAX_PROBLEMS) this.list.push({ field, message });
  }
  addAll(problems: FieldProblem[]): void {
    for (const e of problems) this.add(e.field, e.message);
  }
  get any(): boolean {
    return this.count > 0;
  }
  result(): FieldProblem[] {
    if (this.count > MAX_PROBLEMS)
      return [
        ...this.list,
        { field: 'body', message: `${this.count} problems; only the first ${MAX_PROBLEMS} are listed` },
      ];
    return this.list;
  }
}

/** Checks the key set of an object; returns it when it is an object (even with key problems). */
export function readObject(
  p: Problems,
  value: unknown,
  path: string,
  keys: { required: string[]; optional: string[] },
): JsonObject | null {
  if (!isPlainObject(value)) {
    p.add(path || 'body', 'must be an object');
    return null;
  }
  const allowed = new Set([...keys.required, ...keys.optional]);
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) p.add(fieldPath(path, key), `unknown field ${quoteKey(key)}`);
  }
  for (const key of keys.required) {
    if (!Object.hasOwn(value, key)) p.add(fieldPath(path, key), 'is required');
  }
  return value;
}

export interface StringRule {
  min?: number;
  max: number;
  pattern?: RegExp;
  patternMessage?: string;
  notBlank?: boolean;
}

/** A string field; `fallback` when absent (required fields are reported by readObject). */
export function readString(
  p: Problems,
  obj: JsonObject,
  key: string,
  path: string,
  rule: StringRule,
  fallback = '',
): string {
  const value = own(obj, key);
  const field = fieldPath(path, key);
  if (value === undefined) return fallback;
  if (typeof value !== 'string') {
    p.add(field, 'must be a string');
    return fallback;
  }
  if (value.length < (rule.min ?? 0) || value.length > rule.max) {
    p.add(field, rule.min ? `must be ${rule.min}–${rule.max} characters` : `must be at most ${rule.max} characters`);
  } else if (rule.notBlank && !/\S/.test(value)) {
    p.add(field, 'must not be blank');
  } else if (rule.pattern && !rule.pattern.test(value)) {
    p.add(field, rule.patternMessage ?? `must match ${rule.pattern.source}`);
  }
  return value;
}

export function readNullableString(
  p: Problems,
  obj: JsonObject,
  key: string,
  path: string,
  rule: StringRule,
): string | null {
  const value = own(obj, key);
  if (value === undefined || value === null) return null;
  return readString(p, obj, key, path, rule);
}

export function readNumber(
  p: Problems,
  obj: JsonObject,
  key: string,
  path: string,
  rule: { min: number; max: number; integer?: boolean },
): number | null {
  const value = own(obj, key);
  if (value === undefined || value === null) return null;
  const field = fieldPath(path, key);
  if (typeof value !== 'number' || !Number.isFinite(value) || (rule.integer && !Number.isInteger(value))) {
    p.add(field, rule.integer ? 'must be an integer' : 'must be a number');
    return null;
  }
  if (value < rule.min || value > rule.max) p.add(field, `must be between ${rule.min} and ${rule.max}`);
  return value;
}

/** An array field, [] when absent (required ones are reported by readObject) or invalid. */
export function readArray(p: Problems, obj: JsonObject, key: string, path: string, max: number): unknown[] {
  const value = own(obj, key);
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    p.add(fieldPath(path, key), 'must be an array');
    return [];
  }
  if (value.length > max) {
    p.add(fieldPath(path, key), `must have at most ${max} items`);
    return [];
  }
  return value;
}

/** Workspace tool names and MCP tools as `server/tool` (docs/decisions/mcp.md). */
export function readTools(p: Problems, obj: JsonObject, path: string): string[] {
  const field = fieldPath(path, 'tool_allowlist');
  const list = readArray(p, obj, 'tool_allowlist', path, MAX_TOOLS);
  const out: string[] = [];
  list.forEach((t, i) => {
    if (typeof t !== 'string' || !((TOOL_NAMES as readonly string[]).includes(t) || isMcpToolName(t))) {
      p.add(`${field}[${i}]`, `must be one of ${TOOL_NAMES.join(', ')} or an MCP tool as server/tool`);
    } else if (out.includes(t)) {
      p.add(`${field}[${i}]`, `duplicate tool "${t}"`);
    } else {
      out.push(t);
    }
  });
  return out;
}

/**
 * `tools_requiring_approval` (optional): names from the same item's tool_allowlist, no duplicates
 * (docs/decisions/runtime.md, "Per-tool approval").
 */
export function readApprovalTools(p: Problems, obj: JsonObject, path: string, allowlist: readonly string[]): string[] {
  const field = fieldPath(path, 'tools_requiring_approval');
  const out: string[] = [];
  readArray(p, obj, 'tools_requiring_approval', path, MAX_TOOLS).forEach((t, i) => {
    if (typeof t !== 'string' || !allowlist.includes(t)) p.add(`${field}[${i}]`, 'must be a name from tool_allowlist');
    else if (out.includes(t)) p.add(`${field}[${i}]`, `duplicate tool "${t}"`);
    else out.push(t);
  });
  return out;
}

/** Reads the refs of one collection: each must be a tidy unique string. Returns ref → index. */
export function indexRefs(p: Problems, items: Array<JsonObject | null>, path: string): Map<string, number> {
  const index = new Map<string, number>();
  items.forEach((item, i) => {
    if (!item) return;
    const ref = own(item, 'ref');
    if (ref === undefined) return; // reported as required
    if (typeof ref !== 'string' || !REF_PATTERN.test(ref)) {
      p.add(`${path}[${i}].ref`, 'must be 1–64 letters, digits, "_", "." or "-"');
    } else if (index.has(ref)) {
      p.add(`${path}[${i}].ref`, `duplicate ref "${ref}" (also ${path}[${index.get(ref)}])`);
    } else {
      index.set(ref, i);
    }
  });
  return index;
}
