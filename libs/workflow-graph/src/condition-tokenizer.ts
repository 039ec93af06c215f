// The condition language's tokenizer: reads one token at a time from the source, decoding string escapes.
import { ConditionSyntaxError } from './condition-ast';

export type TokenKind = 'string' | 'number' | 'name' | 'op' | '(' | ')' | ',' | 'eof';

export interface Token {
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
export const CALL_FOLLOWS = /[ \t\n\r]*\(/y;
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
export function readToken(src: string, from: number): Token {
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
    ch === '='
      ? ' (use "==" to compare)'
      : ch === '&'
        ? ' (use "&&" or "and")'
        : ch === '|'
          ? ' (use "||" or "or")'
          : '';
  throw new ConditionSyntaxError(`unexpected ${JSON.stringify(ch)} at ${end}${hint}`, end);
}
