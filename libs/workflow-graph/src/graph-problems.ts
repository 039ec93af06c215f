// The problem collector validateGraph reports into (capped, with a closing note), and the helpers it
// uses to read untrusted JSON safely (own properties only, unknown fields reported).
import type { FieldProblem, GraphWarning } from './types';

const SAFE_FIELD_NAME = /^[A-Za-z0-9_$-]{1,64}$/;

export type JsonObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Reads an own property only: an inherited `constructor` or a polluted prototype never counts. */
export function own(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

export function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

export class Problems {
  readonly errors: FieldProblem[] = [];
  readonly warnings: GraphWarning[] = [];
  errorCount = 0;
  private warningCount = 0;
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  error(field: string, message: string): void {
    this.errorCount++;
    if (this.errorCount <= this.limit) this.errors.push({ field, message });
  }

  warn(field: string, message: string, nodeKey?: string): void {
    this.warningCount++;
    if (this.warningCount > this.limit) return;
    this.warnings.push(nodeKey === undefined ? { field, message } : { field, node_key: nodeKey, message });
  }

  finish(): void {
    if (this.errorCount > this.limit) {
      this.errors.push({
        field: 'graph',
        message: `${this.errorCount} problems; only the first ${this.limit} are listed`,
      });
    }
    if (this.warningCount > this.limit) {
      this.warnings.push({
        field: 'graph',
        message: `${this.warningCount} warnings; only the first ${this.limit} are listed`,
      });
    }
  }
}

export function rejectUnknownFields(
  obj: JsonObject,
  allowed: ReadonlySet<string>,
  path: string,
  problems: Problems,
): void {
  for (const key of Object.keys(obj)) {
    if (allowed.has(key)) continue;
    const field = SAFE_FIELD_NAME.test(key) ? `${path}.${key}` : path;
    problems.error(field, `unknown field ${quote(key)}`);
  }
}
