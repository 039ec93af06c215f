// The condition language's evaluator over {reply, stage, files}.
import {
  MAX_MATCH_SUBJECT_LENGTH,
  MAX_PATTERN_LENGTH,
  type ComparisonOperator,
  type ConditionAst,
  type ConditionContext,
  type ConditionFunction,
  type ConditionValue,
} from './condition-ast';
import { parseCondition } from './condition-parser';

// Evaluator: never throws on a parsed AST. Functions given the wrong types return false (predicates)
// or null (lower, upper, len); comparisons between different types are false.

export function isTruthy(value: ConditionValue): boolean {
  if (value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

function isList(value: ConditionValue): value is readonly string[] {
  return Array.isArray(value);
}

function strictEquals(a: ConditionValue, b: ConditionValue): boolean {
  if (isList(a) || isList(b)) {
    if (!isList(a) || !isList(b) || a.length !== b.length) return false;
    return a.every((item, i) => item === b[i]);
  }
  return a === b;
}

function compare(op: ComparisonOperator, a: ConditionValue, b: ConditionValue): boolean {
  if (op === '==') return strictEquals(a, b);
  if (op === '!=') return !strictEquals(a, b);
  const bothNumbers = typeof a === 'number' && typeof b === 'number';
  const bothStrings = typeof a === 'string' && typeof b === 'string';
  if (!bothNumbers && !bothStrings) return false;
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

function normalisePath(path: string): string {
  let p = path;
  while (p.startsWith('./')) p = p.slice(2);
  while (p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

function fileExists(files: readonly string[], path: ConditionValue): boolean {
  if (typeof path !== 'string') return false;
  const wanted = normalisePath(path);
  if (wanted === '') return false;
  const dir = `${wanted}/`;
  return files.some((file) => {
    const f = normalisePath(file);
    return f === wanted || f.startsWith(dir);
  });
}

function callFunction(name: ConditionFunction, args: ConditionValue[], ctx: ConditionContext): ConditionValue {
  const a = args[0] ?? null;
  const b = args[1] ?? null;
  switch (name) {
    case 'contains':
      if (typeof a === 'string') return typeof b === 'string' && a.includes(b);
      if (isList(a)) return a.some((item) => item === b);
      return false;
    case 'icontains': {
      if (typeof b !== 'string') return false;
      const needle = b.toLowerCase();
      if (typeof a === 'string') return a.toLowerCase().includes(needle);
      if (isList(a)) return a.some((item) => typeof item === 'string' && item.toLowerCase() === needle);
      return false;
    }
    case 'exists':
      return fileExists(ctx.files, a);
    case 'starts_with':
      return typeof a === 'string' && typeof b === 'string' && a.startsWith(b);
    case 'ends_with':
      return typeof a === 'string' && typeof b === 'string' && a.endsWith(b);
    case 'lower':
      return typeof a === 'string' ? a.toLowerCase() : null;
    case 'upper':
      return typeof a === 'string' ? a.toUpperCase() : null;
    case 'len':
      return typeof a === 'string' || isList(a) ? a.length : null;
    case 'matches': {
      if (typeof a !== 'string' || typeof b !== 'string' || b.length > MAX_PATTERN_LENGTH) return false;
      let re: RegExp;
      try {
        re = new RegExp(b);
      } catch {
        return false;
      }
      return re.test(a.length > MAX_MATCH_SUBJECT_LENGTH ? a.slice(0, MAX_MATCH_SUBJECT_LENGTH) : a);
    }
  }
}

function evaluate(node: ConditionAst, ctx: ConditionContext): ConditionValue {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'identifier':
      return ctx[node.name];
    case 'not':
      return !isTruthy(evaluate(node.operand, ctx));
    case 'logical':
      if (node.op === '&&') return isTruthy(evaluate(node.left, ctx)) && isTruthy(evaluate(node.right, ctx));
      return isTruthy(evaluate(node.left, ctx)) || isTruthy(evaluate(node.right, ctx));
    case 'compare':
      return compare(node.op, evaluate(node.left, ctx), evaluate(node.right, ctx));
    case 'call':
      return callFunction(
        node.name,
        node.args.map((arg) => evaluate(arg, ctx)),
        ctx,
      );
  }
}

/** Evaluates a condition's value without applying truthiness (useful for previews and tests). */
export function evaluateConditionValue(astOrSrc: ConditionAst | string, ctx: ConditionContext): ConditionValue {
  const ast = typeof astOrSrc === 'string' ? parseCondition(astOrSrc) : astOrSrc;
  const safeCtx: ConditionContext = {
    reply: typeof ctx.reply === 'string' ? ctx.reply : '',
    stage: typeof ctx.stage === 'string' ? ctx.stage : '',
    files: Array.isArray(ctx.files) ? ctx.files : [],
  };
  return evaluate(ast, safeCtx);
}

/**
 * Whether a condition holds. A string source is parsed first (and may throw ConditionSyntaxError);
 * evaluating an AST never throws.
 */
export function evaluateCondition(astOrSrc: ConditionAst | string, ctx: ConditionContext): boolean {
  return isTruthy(evaluateConditionValue(astOrSrc, ctx));
}
