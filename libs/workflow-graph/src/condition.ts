// The branch condition language (docs/API.md): a tokenizer, a hand-written recursive-descent parser to a
// small AST, and an evaluator over {reply, stage, files}. Nothing here ever reaches eval/Function: the
// only names a condition can use are the three identifiers and the functions in FUNCTIONS.

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
  | 'contains'
  | 'icontains'
  | 'exists'
  | 'starts_with'
  | 'ends_with'
  | 'lower'
  | 'upper'
  | 'len'
  | 'matches';
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

const IDENTIFIERS: ReadonlyMap<string, ConditionIdentifier> = new Map([
  ['reply', 'reply'],
  ['stage', 'stage'],
  ['files', 'files'],
]);

// A Map, never a plain object: `constructor`, `__proto__` or `toString` must not resolve to anything.
const FUNCTIONS: ReadonlyMap<string, { name: ConditionFunction; arity: number }> = new Map(
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

// ---------------------------------------------------------------------------------------------
// Tokenizer

type TokenKind = 'string' | 'number' | 'name' | 'op' | '(' | ')' | ',' | 'eof';

interface Token {
  kind: TokenKind;
  /** The operator or name text; the decoded value for strings; the source text for numbers. */
  text: string;
  /** Offset of the token's first character. */
  pos: number;
  /** Offset just past the token. */
  end: number;
}

// One sticky regular expression reads blanks and then one token: names, numbers, quoted strings
// (escapes decoded afterwards), operators and punctuation. Every part is optional, so it always
// matches; when no token group matched, the character at lastIndex is the error.
const TOKEN_PATTERN =
  /[ \t\n\r]*(?:([A-Za-z_][A-Za-z0-9_]*)|([0-9]+(?:\.[0-9]+)?)|("(?:[^"\\]|\\[\s\S])*"|'(?:[^'\\]|\\[\s\S])*')|(\|\||&&|==|!=|<=|>=|[!<>(),-]))?/y;
const CALL_FOLLOWS = /[ \t\n\r]*\(/y;
const NAME_PART = /[A-Za-z0-9_.]/;
const ESCAPES: ReadonlyMap<string, string> = new Map([
  ['\\', '\\'],
  ['"', '"'],
  ["'", "'"],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);

/** Decodes a quoted string token (quotes included) that starts at `pos`. */
function decodeString(raw: string, pos: number): string {
  const body = raw.slice(1, -1);
  if (!body.includes('\\')) return body;
  let value = '';
  let run = 0;
  let i = 0;
  while ((i = body.indexOf('\\', run)) !== -1) {
    value += body.slice(run, i);
    const next = body.charAt(i + 1);
    if (next === 'u' && /^[0-9A-Fa-f]{4}$/.test(body.slice(i + 2, i + 6))) {
      value += String.fromCharCode(parseInt(body.slice(i + 2, i + 6), 16));
      run = i + 6;
      continue;
    }
    const decoded = ESCAPES.get(next);
    if (decoded === undefined) {
      const at = pos + 1 + i;
      throw new ConditionSyntaxError(`unknown escape ${JSON.stringify(`\\${next}`)} at ${at}`, at);
    }
    value += decoded;
    run = i + 2;
  }
  return value + body.slice(run);
}

/** Reads the token that starts at or after `from`; tokens are read lazily so the first error wins. */
function readToken(src: string, from: number): Token {
  TOKEN_PATTERN.lastIndex = from;
  const match = TOKEN_PATTERN.exec(src) as RegExpExecArray;
  const end = TOKEN_PATTERN.lastIndex;
  const [, name, number, string, op] = match;
  if (name !== undefined) return { kind: 'name', text: name, pos: end - name.length, end };
  if (number !== undefined) {
    const pos = end - number.length;
    if (NAME_PART.test(src.charAt(end))) throw new ConditionSyntaxError(`malformed number at ${pos}`, pos);
    return { kind: 'number', text: number, pos, end };
  }
  if (string !== undefined) {
    const pos = end - string.length;
    return { kind: 'string', text: decodeString(string, pos), pos, end };
  }
  if (op !== undefined) {
    const kind = op === '(' || op === ')' || op === ',' ? op : 'op';
    return { kind, text: op, pos: end - op.length, end };
  }
  if (end >= src.length) return { kind: 'eof', text: '', pos: src.length, end };
  const ch = src.charAt(end);
  if (ch === '"' || ch === "'") throw new ConditionSyntaxError(`unterminated string starting at ${end}`, end);
  const hint =
    ch === '=' ? ' (use "==" to compare)' : ch === '&' ? ' (use "&&" or "and")' : ch === '|' ? ' (use "||" or "or")' : '';
  throw new ConditionSyntaxError(`unexpected ${JSON.stringify(ch)} at ${end}${hint}`, end);
}

// ---------------------------------------------------------------------------------------------
// Parser
//
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
    throw new ConditionSyntaxError(
      `condition is longer than ${MAX_CONDITION_LENGTH} characters`,
      MAX_CONDITION_LENGTH,
    );
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

// ---------------------------------------------------------------------------------------------
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

export const CONDITION_LANGUAGE_DOC = `### Edge conditions

An edge's \`condition\` is a small expression. It is never run as code: it is parsed and evaluated
by the service. An edge with no condition (\`null\`) is the default.

**Names**: \`reply\` (the last agent reply, a string), \`stage\` (the current stage, a string),
\`files\` (the workspace file paths, a list of strings).

**Literals**: \`"text"\` or \`'text'\` (escapes \`\\\\\` \`\\"\` \`\\'\` \`\\n\` \`\\r\` \`\\t\` \`\\uXXXX\`),
numbers (\`3\`, \`-2\`, \`0.5\`), \`true\`, \`false\`, \`null\`. There are no list literals.

**Operators**, loosest first: \`||\` / \`or\`; \`&&\` / \`and\`; \`!\` / \`not\`;
\`==\` \`!=\` \`<\` \`<=\` \`>\` \`>=\`; parentheses. \`not stage == "test"\` means \`not (stage == "test")\`.
Comparisons cannot be chained. \`==\` and \`!=\` compare strictly (\`1 == "1"\` is false); \`<\` and
friends compare two numbers or two strings and are false for anything else.

**Functions**:

| function | result |
|---|---|
| \`contains(x, y)\` | \`y\` is a substring of the string \`x\`, or an element of the list \`x\` (case-sensitive) |
| \`icontains(x, y)\` | the same, ignoring case |
| \`exists(path)\` | \`path\` is a workspace file, or a folder holding one (\`exists("docs")\`) |
| \`starts_with(s, p)\`, \`ends_with(s, p)\` | string prefix / suffix test |
| \`lower(s)\`, \`upper(s)\` | the string in lower / upper case |
| \`len(x)\` | length of a string or a list |
| \`matches(s, pattern)\` | \`s\` matches the regular expression \`pattern\` (JavaScript syntax, at most 200 characters; only the first 100,000 characters of \`s\` are searched) |

A function given the wrong kind of value is false (\`lower\`, \`upper\` and \`len\` give \`null\`);
it never stops the turn.

**Truth**: \`false\`, \`null\`, \`0\`, \`""\` and an empty list are false; everything else is true.

**Examples**: \`contains(reply, "APPROVED")\`, \`exists("docs/prd.md") and not icontains(reply, "todo")\`,
\`len(files) >= 3 || stage == "test"\`, \`matches(reply, "^score: [4-5]")\`.

Limits: 2,000 characters and 64 levels of nesting. Unknown names, unknown functions and a wrong
number of arguments are errors when the graph is saved.
`;
