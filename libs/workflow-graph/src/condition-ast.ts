// The condition language's vocabulary (docs/API.md): limits, the AST, the syntax error, and the only
// identifiers and functions a condition can name.

export const MAX_CONDITION_LENGTH = 2000;
export const MAX_CONDITION_DEPTH = 64;
export const MAX_PATTERN_LENGTH = 200;
export const MAX_MATCH_SUBJECT_LENGTH = 100_000;

export interface ConditionContext {
  reply: string;
  stage: string;
  files: readonly string[];
}

export type ConditionIdentifier = 'reply' | 'stage' | 'files';
export type ConditionFunction =
  'contains' | 'icontains' | 'exists' | 'starts_with' | 'ends_with' | 'lower' | 'upper' | 'len' | 'matches';
export type LogicalOperator = '&&' | '||';
export type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

export type ConditionAst =
  | { kind: 'literal'; value: string | number | boolean | null; pos: number }
  | { kind: 'identifier'; name: ConditionIdentifier; pos: number }
  | { kind: 'not'; operand: ConditionAst; pos: number }
  | { kind: 'logical'; op: LogicalOperator; left: ConditionAst; right: ConditionAst; pos: number }
  | { kind: 'compare'; op: ComparisonOperator; left: ConditionAst; right: ConditionAst; pos: number }
  | { kind: 'call'; name: ConditionFunction; args: ConditionAst[]; pos: number };

/** A value a condition expression can produce. */
export type ConditionValue = string | number | boolean | null | readonly string[];

export class ConditionSyntaxError extends Error {
  /** 0-based character offset into the condition source. */
  readonly position: number;

  constructor(message: string, position: number) {
    super(message);
    this.name = 'ConditionSyntaxError';
    this.position = position;
  }
}

export const IDENTIFIERS: ReadonlyMap<string, ConditionIdentifier> = new Map([
  ['reply', 'reply'],
  ['stage', 'stage'],
  ['files', 'files'],
]);

// A Map, never a plain object: `constructor`, `__proto__` or `toString` must not resolve to anything.
export const FUNCTIONS: ReadonlyMap<string, { name: ConditionFunction; arity: number }> = new Map(
  (
    [
      ['contains', 2],
      ['icontains', 2],
      ['exists', 1],
      ['starts_with', 2],
      ['ends_with', 2],
      ['lower', 1],
      ['upper', 1],
      ['len', 1],
      ['matches', 2],
    ] as const
  ).map(([name, arity]) => [name, { name, arity }]),
);

export const CONDITION_IDENTIFIERS: readonly ConditionIdentifier[] = [...IDENTIFIERS.values()];
export const CONDITION_FUNCTIONS: readonly ConditionFunction[] = [...FUNCTIONS.values()].map((f) => f.name);
