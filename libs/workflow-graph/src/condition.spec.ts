import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CONDITION_FUNCTIONS,
  CONDITION_LANGUAGE_DOC,
  ConditionSyntaxError,
  checkCondition,
  evaluateCondition,
  evaluateConditionValue,
  parseCondition,
  type ConditionContext,
} from './condition';

const ctx: ConditionContext = {
  reply: 'The PRD is APPROVED. Score: 4',
  stage: 'design',
  files: ['docs/prd.md', 'src/app.ts', 'README.md'],
};

const holds = (src: string, c: ConditionContext = ctx): boolean => evaluateCondition(src, c);

function syntaxError(src: string): ConditionSyntaxError {
  try {
    parseCondition(src);
  } catch (err) {
    if (err instanceof ConditionSyntaxError) return err;
    throw err;
  }
  return assert.fail(`expected ${JSON.stringify(src)} not to parse`);
}

describe('condition literals and names', () => {
  test('strings in both quote styles, with escapes', () => {
    assert.equal(evaluateConditionValue('"a\\"b"', ctx), 'a"b');
    assert.equal(evaluateConditionValue("'it\\'s'", ctx), "it's");
    assert.equal(evaluateConditionValue('"back\\\\slash"', ctx), 'back\\slash');
    assert.equal(evaluateConditionValue('"line\\nbreak\\t\\r"', ctx), 'line\nbreak\t\r');
    assert.equal(evaluateConditionValue('"\\u0041"', ctx), 'A');
    assert.equal(evaluateConditionValue(`"it's"`, ctx), "it's");
  });

  test('numbers, booleans and null', () => {
    assert.equal(evaluateConditionValue('42', ctx), 42);
    assert.equal(evaluateConditionValue('0.5', ctx), 0.5);
    assert.equal(evaluateConditionValue('-3', ctx), -3);
    assert.equal(evaluateConditionValue('true', ctx), true);
    assert.equal(evaluateConditionValue('false', ctx), false);
    assert.equal(evaluateConditionValue('null', ctx), null);
  });

  test('identifiers read the context', () => {
    assert.equal(evaluateConditionValue('reply', ctx), ctx.reply);
    assert.equal(evaluateConditionValue('stage', ctx), 'design');
    assert.deepEqual(evaluateConditionValue('files', ctx), ctx.files);
  });

  test('truthiness: empty string, 0, null, false and empty list are false', () => {
    const empty: ConditionContext = { reply: '', stage: '', files: [] };
    assert.equal(holds('reply', empty), false);
    assert.equal(holds('files', empty), false);
    assert.equal(holds('0'), false);
    assert.equal(holds('null'), false);
    assert.equal(holds('false'), false);
    assert.equal(holds('""'), false);
    assert.equal(holds('reply'), true);
    assert.equal(holds('files'), true);
    assert.equal(holds('1'), true);
    assert.equal(holds('"0"'), true);
  });
});

describe('condition operators', () => {
  test('&& binds tighter than ||', () => {
    assert.equal(holds('true || false && false'), true);
    assert.equal(holds('(true || false) && false'), false);
    const ast = parseCondition('stage == "a" || stage == "b" && reply');
    assert.equal(ast.kind, 'logical');
    assert.ok(ast.kind === 'logical' && ast.op === '||' && ast.right.kind === 'logical' && ast.right.op === '&&');
  });

  test('! binds tighter than && but looser than comparisons', () => {
    assert.equal(holds('!false && false'), false);
    assert.equal(holds('!stage == "design"'), false);
    assert.equal(holds('!stage == "test"'), true);
    const ast = parseCondition('!stage == "x"');
    assert.ok(ast.kind === 'not' && ast.operand.kind === 'compare');
  });

  test('word forms and, or, not', () => {
    assert.equal(holds('true or false and false'), true);
    assert.equal(holds('not false and true'), true);
    assert.equal(holds('not stage == "design"'), false);
    assert.equal(holds('contains(reply, "PRD") and not contains(reply, "REJECTED")'), true);
  });

  test('== and != compare strictly, without coercion', () => {
    assert.equal(holds('1 == "1"'), false);
    assert.equal(holds('1 != "1"'), true);
    assert.equal(holds('null == null'), true);
    assert.equal(holds('null == false'), false);
    assert.equal(holds('0 == false'), false);
    assert.equal(holds('"" == false'), false);
    assert.equal(holds('files == files'), true);
    assert.equal(holds('stage == "design"'), true);
    assert.equal(holds('stage != "design"'), false);
    assert.equal(holds('len(files) == 3'), true);
  });

  test('ordering compares two numbers or two strings; anything else is false', () => {
    assert.equal(holds('1 < 2'), true);
    assert.equal(holds('2 <= 2'), true);
    assert.equal(holds('3 > 2.5'), true);
    assert.equal(holds('-1 >= 0'), false);
    assert.equal(holds('"a" < "b"'), true);
    assert.equal(holds('stage >= "design"'), true);
    assert.equal(holds('1 < "2"'), false);
    assert.equal(holds('"2" > 1'), false);
    assert.equal(holds('null < 1'), false);
    assert.equal(holds('true > false'), false);
    assert.equal(holds('files > 0'), false);
  });
});

describe('condition functions', () => {
  test('contains and icontains on strings and lists', () => {
    assert.equal(holds('contains(reply, "APPROVED")'), true);
    assert.equal(holds('contains(reply, "approved")'), false);
    assert.equal(holds('icontains(reply, "approved")'), true);
    assert.equal(holds('contains(files, "README.md")'), true);
    assert.equal(holds('contains(files, "readme.md")'), false);
    assert.equal(holds('icontains(files, "readme.md")'), true);
    assert.equal(holds('contains(files, "docs")'), false);
    assert.equal(holds('contains(reply, 4)'), false);
    assert.equal(holds('contains(3, "3")'), false);
  });

  test('exists looks for a workspace file or a folder holding one', () => {
    assert.equal(holds('exists("docs/prd.md")'), true);
    assert.equal(holds('exists("./docs/prd.md")'), true);
    assert.equal(holds('exists("docs")'), true);
    assert.equal(holds('exists("docs/")'), true);
    assert.equal(holds('exists("doc")'), false);
    assert.equal(holds('exists("docs/prd")'), false);
    assert.equal(holds('exists("")'), false);
    assert.equal(holds('exists(1)'), false);
  });

  test('starts_with, ends_with, lower, upper, len', () => {
    assert.equal(holds('starts_with(reply, "The")'), true);
    assert.equal(holds('ends_with(reply, "4")'), true);
    assert.equal(holds('ends_with(files, "4")'), false);
    assert.equal(evaluateConditionValue('lower("AbC")', ctx), 'abc');
    assert.equal(evaluateConditionValue('upper(stage)', ctx), 'DESIGN');
    assert.equal(evaluateConditionValue('lower(files)', ctx), null);
    assert.equal(evaluateConditionValue('len(stage)', ctx), 6);
    assert.equal(evaluateConditionValue('len(files)', ctx), 3);
    assert.equal(evaluateConditionValue('len(3)', ctx), null);
    assert.equal(holds('contains(lower(reply), "approved")'), true);
  });

  test('matches uses a JavaScript regular expression', () => {
    assert.equal(holds('matches(reply, "Score: [4-5]$")'), true);
    assert.equal(holds('matches(reply, "^score")'), false);
    assert.equal(holds('matches(lower(reply), "^the prd")'), true);
    // A pattern from a name is checked when evaluated: invalid means false, never an exception.
    assert.equal(holds('matches(reply, stage)', { ...ctx, stage: '(' }), false);
    assert.equal(holds('matches(reply, stage)', { ...ctx, stage: 'PRD' }), true);
  });

  test('matches searches only the first 100,000 characters of its subject', () => {
    const long: ConditionContext = { ...ctx, reply: `${'a'.repeat(150_000)}NEEDLE` };
    assert.equal(holds('matches(reply, "NEEDLE")', long), false);
    assert.equal(holds('contains(reply, "NEEDLE")', long), true);
  });

  test('every function is described in the language doc', () => {
    for (const name of CONDITION_FUNCTIONS) assert.ok(CONDITION_LANGUAGE_DOC.includes(`${name}(`), name);
  });

  test('the README carries the language doc verbatim', () => {
    // Compiled to dist/, so the README is one folder up.
    const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
    assert.ok(readme.includes(CONDITION_LANGUAGE_DOC.trim()), 'README.md is out of date with CONDITION_LANGUAGE_DOC');
  });
});

describe('condition syntax errors', () => {
  test('report the offending token and its position', () => {
    const err = syntaxError('reply == "a")');
    assert.equal(err.message, 'unexpected ")" at 12');
    assert.equal(err.position, 12);
    assert.equal(syntaxError('(reply').message, 'unexpected end of condition at 6, expected ")"');
    assert.equal(syntaxError('reply ==').position, 8);
    assert.equal(syntaxError('contains(reply "x")').message, 'unexpected string "x" at 15, expected "," or ")"');
    assert.equal(syntaxError('"abc').message, 'unterminated string starting at 0');
    assert.equal(syntaxError('"\\q"').position, 1);
    assert.match(syntaxError('reply = "x"').message, /unexpected "=" at 6 \(use "==" to compare\)/);
    assert.match(syntaxError('1 < 2 < 3').message, /cannot be chained at 6/);
    assert.match(syntaxError('12abc').message, /malformed number at 0/);
    assert.match(syntaxError('stage and').message, /unexpected end of condition at 9/);
  });

  test('empty and whitespace-only conditions are errors', () => {
    assert.equal(syntaxError('').message, 'condition is empty');
    assert.equal(syntaxError('   ').message, 'condition is empty');
  });

  test('unknown names, unknown functions and wrong arity fail at parse time', () => {
    assert.match(syntaxError('answer == "x"').message, /unknown name "answer" at 0/);
    assert.match(syntaxError('stage == foo').message, /unknown name "foo" at 9/);
    assert.match(syntaxError('shout(reply)').message, /unknown function "shout" at 0/);
    assert.match(syntaxError('contains(reply)').message, /contains\(\) takes 2 arguments, got 1 at 0/);
    assert.match(syntaxError('exists("a", "b")').message, /exists\(\) takes 1 argument, got 2/);
    assert.match(syntaxError('len()').message, /len\(\) takes 1 argument, got 0/);
    assert.match(syntaxError('contains').message, /"contains" is a function/);
    assert.match(syntaxError('and').message, /unexpected "and" at 0/);
  });

  test('nothing reaches JavaScript: property access, prototypes and globals are parse errors', () => {
    for (const src of [
      'constructor.constructor("x")()',
      '__proto__',
      'reply.constructor',
      'reply["length"]',
      'toString()',
      'hasOwnProperty("reply")',
      'constructor("return 1")',
      'this',
      'globalThis',
      'process.exit(1)',
      'eval("1")',
      'Function("return 1")()',
      '[1, 2]',
      '{}',
      'reply ? 1 : 2',
      '`x`',
      'stage = "x"',
    ]) {
      assert.notEqual(checkCondition(src), null, src);
    }
    assert.match(checkCondition('constructor.constructor("x")()') ?? '', /unknown name "constructor" at 0/);
  });

  test('evaluation never calls eval or Function', () => {
    const g = globalThis as unknown as { eval: unknown; Function: unknown };
    const original = { eval: g.eval, Function: g.Function };
    const trap = (): never => assert.fail('eval/Function must not be used');
    g.eval = trap;
    g.Function = trap;
    try {
      assert.equal(holds('contains(reply, "APPROVED") && matches(reply, "\\\\d") && len(files) > 1'), true);
    } finally {
      g.eval = original.eval;
      g.Function = original.Function;
    }
  });

  test('regular expression literals are checked when parsed', () => {
    assert.match(syntaxError(`matches(reply, "${'a'.repeat(201)}")`).message, /longer than 200 characters at 15/);
    assert.equal(checkCondition(`matches(reply, "${'a'.repeat(200)}")`), null);
    assert.match(syntaxError('matches(reply, "(")').message, /invalid regular expression at 15/);
  });

  test('bounds: 2,000 characters and 64 levels of nesting', () => {
    const long = `reply == "${'x'.repeat(1990)}"`;
    assert.ok(long.length > 2000);
    assert.match(syntaxError(long).message, /longer than 2000 characters/);
    assert.equal(checkCondition(`${'('.repeat(64)}true${')'.repeat(64)}`), null);
    assert.match(syntaxError(`${'('.repeat(65)}true${')'.repeat(65)}`).message, /deeper than 64/);
    assert.match(syntaxError(`${'!'.repeat(65)}true`).message, /deeper than 64/);
    assert.match(syntaxError(`${'lower('.repeat(65)}reply${')'.repeat(65)}`).message, /deeper than 64/);
    // Long flat chains are fine: they do not nest.
    const chain = Array.from({ length: 240 }, () => 'true').join(' && ');
    assert.ok(chain.length < 2000);
    assert.equal(holds(chain), true);
  });

  test('checkCondition returns null or the message; evaluateCondition throws on bad source', () => {
    assert.equal(checkCondition('contains(reply, "x")'), null);
    assert.equal(checkCondition('reply == "a")'), 'unexpected ")" at 12');
    assert.throws(() => evaluateCondition('reply ==', ctx), ConditionSyntaxError);
  });
});
