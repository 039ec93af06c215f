// The condition language's parser: hand-written recursive descent from tokens to a ConditionAst.
import {
  CONDITION_FUNCTIONS,
  ConditionSyntaxError,
  FUNCTIONS,
  IDENTIFIERS,
  MAX_CONDITION_DEPTH,
  MAX_CONDITION_LENGTH,
  MAX_PATTERN_LENGTH,
  type ComparisonOperator,
  type ConditionAst,
} from './condition-ast';
import { CALL_FOLLOWS, readToken, type Token } from './condition-tokenizer';

// Precedence, loosest first: `||`/`or`, `&&`/`and`, `!`/`not`, comparisons (not chainable), primaries.
// `!` sits below comparisons as in Python, so `!stage == "test"` means `!(stage == "test")`.

const COMPARISON_OPERATORS = new Set<string>(['==', '!=', '<', '<=', '>', '>=']);
const KEYWORDS = new Set(['and', 'or', 'not', 'true', 'false', 'null']);

function describe(token: Token): string {
  switch (token.kind) {
    case 'eof':
      return 'end of condition';
    case 'string': {
      const shown = token.text.length > 20 ? `${token.text.slice(0, 20)}…` : token.text;
      return `string ${JSON.stringify(shown)}`;
    }
    case 'number':
      return `number ${token.text}`;
    default:
      return JSON.stringify(token.text);
  }
}

class Parser {
  private depth = 0;
  private readonly src: string;
  /** The lookahead token, read on demand so that the earliest error in the source is the one reported. */
  private current: Token | null = null;
  private end = 0;

  constructor(src: string) {
    this.src = src;
  }

  parse(): ConditionAst {
    const ast = this.parseOr();
    const rest = this.peek();
    if (rest.kind !== 'eof') this.fail(rest);
    return ast;
  }

  private peek(): Token {
    if (this.current === null) {
      this.current = readToken(this.src, this.end);
      this.end = this.current.end;
    }
    return this.current;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.current = null;
    return token;
  }

  /** Whether the next non-blank character is "(" — decided without reading (and failing on) a token. */
  private callFollows(): boolean {
    if (this.current !== null) return this.current.kind === '(';
    CALL_FOLLOWS.lastIndex = this.end;
    return CALL_FOLLOWS.test(this.src);
  }

  private fail(token: Token, expected?: string): never {
    const suffix = expected === undefined ? '' : `, expected ${expected}`;
    throw new ConditionSyntaxError(`unexpected ${describe(token)} at ${token.pos}${suffix}`, token.pos);
  }

  private isWord(token: Token, op: string, word: string): boolean {
    return (token.kind === 'op' && token.text === op) || (token.kind === 'name' && token.text === word);
  }

  private enter(pos: number): void {
    this.depth++;
    if (this.depth > MAX_CONDITION_DEPTH) {
      throw new ConditionSyntaxError(`condition nests deeper than ${MAX_CONDITION_DEPTH} levels at ${pos}`, pos);
    }
  }

  private leave(): void {
    this.depth--;
  }

  private parseOr(): ConditionAst {
    let left = this.parseAnd();
    while (this.isWord(this.peek(), '||', 'or')) {
      const pos = this.next().pos;
      left = { kind: 'logical', op: '||', left, right: this.parseAnd(), pos };
    }
    return left;
  }

  private parseAnd(): ConditionAst {
    let left = this.parseNot();
    while (this.isWord(this.peek(), '&&', 'and')) {
      const pos = this.next().pos;
      left = { kind: 'logical', op: '&&', left, right: this.parseNot(), pos };
    }
    return left;
  }

  private parseNot(): ConditionAst {
    if (this.isWord(this.peek(), '!', 'not')) {
      const pos = this.next().pos;
      this.enter(pos);
      const operand = this.parseNot();
      this.leave();
      return { kind: 'not', operand, pos };
    }
    return this.parseComparison();
  }

  private parseComparison(): ConditionAst {
    const left = this.parsePrimary();
    const token = this.peek();
    if (token.kind !== 'op' || !COMPARISON_OPERATORS.has(token.text)) return left;
    this.next();
    const right = this.parsePrimary();
    const after = this.peek();
    if (after.kind === 'op' && COMPARISON_OPERATORS.has(after.text)) {
      throw new ConditionSyntaxError(
        `comparisons cannot be chained at ${after.pos}; combine them with "&&"`,
        after.pos,
      );
    }
    return { kind: 'compare', op: token.text as ComparisonOperator, left, right, pos: token.pos };
  }

  private parsePrimary(): ConditionAst {
    const token = this.next();
    switch (token.kind) {
      case 'string':
        return { kind: 'literal', value: token.text, pos: token.pos };
      case 'number':
        return { kind: 'literal', value: Number(token.text), pos: token.pos };
      case '(': {
        this.enter(token.pos);
        const inner = this.parseOr();
        this.leave();
        const close = this.next();
        if (close.kind !== ')') this.fail(close, '")"');
        return inner;
      }
      case 'op': {
        const num = this.peek();
        if (token.text === '-' && num.kind === 'number' && num.pos === token.pos + 1) {
          this.next();
          return { kind: 'literal', value: -Number(num.text), pos: token.pos };
        }
        return this.fail(token);
      }
      case 'name':
        return this.parseName(token);
      default:
        return this.fail(token);
    }
  }

  private parseName(token: Token): ConditionAst {
    const name = token.text;
    if (name === 'true' || name === 'false') return { kind: 'literal', value: name === 'true', pos: token.pos };
    if (name === 'null') return { kind: 'literal', value: null, pos: token.pos };
    if (KEYWORDS.has(name)) return this.fail(token);
    if (this.callFollows()) return this.parseCall(token);
    const identifier = IDENTIFIERS.get(name);
    if (identifier === undefined) {
      const known = FUNCTIONS.has(name) ? ` ("${name}" is a function: call it as ${name}(…))` : '';
      throw new ConditionSyntaxError(
        `unknown name ${JSON.stringify(name)} at ${token.pos}${known}; known names are reply, stage and files`,
        token.pos,
      );
    }
    return { kind: 'identifier', name: identifier, pos: token.pos };
  }

  private parseCall(token: Token): ConditionAst {
    const fn = FUNCTIONS.get(token.text);
    if (fn === undefined) {
      throw new ConditionSyntaxError(
        `unknown function ${JSON.stringify(token.text)} at ${token.pos}; known functions are ${CONDITION_FUNCTIONS.join(', ')}`,
        token.pos,
      );
    }
    this.next(); // "("
    this.enter(token.pos);
    const args: ConditionAst[] = [];
    if (this.peek().kind !== ')') {
      for (;;) {
        args.push(this.parseOr());
        const sep = this.peek();
        if (sep.kind === ',') {
          this.next();
          continue;
        }
        if (sep.kind === ')') break;
        this.fail(sep, '"," or ")"');
      }
    }
    this.next(); // ")"
    this.leave();
    if (args.length !== fn.arity) {
      const noun = fn.arity === 1 ? 'argument' : 'arguments';
      throw new ConditionSyntaxError(
        `${fn.name}() takes ${fn.arity} ${noun}, got ${args.length} at ${token.pos}`,
        token.pos,
      );
    }
    if (fn.name === 'matches') checkLiteralPattern(args[1]);
    return { kind: 'call', name: fn.name, args, pos: token.pos };
  }
}

function checkLiteralPattern(arg: ConditionAst | undefined): void {
  if (arg === undefined || arg.kind !== 'literal' || typeof arg.value !== 'string') return;
  if (arg.value.length > MAX_PATTERN_LENGTH) {
    throw new ConditionSyntaxError(
      `regular expression is longer than ${MAX_PATTERN_LENGTH} characters at ${arg.pos}`,
      arg.pos,
    );
  }
  try {
    new RegExp(arg.value);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ConditionSyntaxError(`invalid regular expression at ${arg.pos}: ${reason}`, arg.pos);
  }
}

/** Parses a condition. Throws ConditionSyntaxError (with `position`) when it is malformed. */
export function parseCondition(src: string): ConditionAst {
  if (typeof src !== 'string') throw new ConditionSyntaxError('condition must be a string', 0);
  if (src.length > MAX_CONDITION_LENGTH) {
    throw new ConditionSyntaxError(`condition is longer than ${MAX_CONDITION_LENGTH} characters`, MAX_CONDITION_LENGTH);
  }
  if (src.trim() === '') throw new ConditionSyntaxError('condition is empty', 0);
  return new Parser(src).parse();
}

/** Returns the syntax error message for `src`, or null when it parses. */
export function checkCondition(src: string): string | null {
  try {
    parseCondition(src);
    return null;
  } catch (err) {
    if (err instanceof ConditionSyntaxError) return err.message;
    throw err;
  }
}
