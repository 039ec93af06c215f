import assert from 'node:assert/strict';
import { DomainError } from '../../platform/errors/domain-error';
import {
  isInside,
  MAX_PATH,
  normalizeWorkspaceDir,
  normalizeWorkspacePath,
  WorkspacePathError,
} from './workspace-path';

describe('normalizeWorkspacePath', () => {
  test('keeps good relative paths', () => {
    assert.equal(normalizeWorkspacePath('docs/design.md'), 'docs/design.md');
    assert.equal(normalizeWorkspacePath('README'), 'README');
    assert.equal(normalizeWorkspacePath('..foo/bar..'), '..foo/bar..', 'dots inside a name are fine');
    assert.equal(normalizeWorkspacePath('a b/ü.md'), 'a b/ü.md');
  });

  test('collapses empty segments, removes "./" and a trailing slash', () => {
    assert.equal(normalizeWorkspacePath('a//b'), 'a/b');
    assert.equal(normalizeWorkspacePath('./docs//a/./b.md'), 'docs/a/b.md');
    assert.equal(normalizeWorkspacePath('docs/'), 'docs');
  });

  test('%2e%2e is taken literally (no URL decoding) and stays inside the workspace', () => {
    const p = normalizeWorkspacePath('%2e%2e/x');
    assert.equal(p, '%2e%2e/x');
    assert.equal(isInside('%2e%2e', p), true);
    assert.equal(normalizeWorkspacePath('%2e%2e%2f%2e%2e%2fetc'), '%2e%2e%2f%2e%2e%2fetc', 'one literal segment');
  });

  const traversal: Array<[string, string]> = [
    ['../x', 'parent'],
    ['a/../../x', 'nested parent'],
    ['a/..', 'trailing parent'],
    ['a/b/../c', 'parent in the middle (refused, not resolved)'],
    ['..', 'bare parent'],
    ['/etc/passwd', 'absolute'],
    ['//server/share', 'UNC-like'],
    ['C:\\x', 'drive with backslash'],
    ['c:/x', 'drive'],
    ['a\\..\\b', 'backslash traversal'],
    ['a\\b', 'backslash'],
    ['a\u0000b', 'NUL'],
    ['a\nb', 'newline'],
    ['a\u007fb', 'DEL'],
    ['a\u0085b', 'C1 control'],
    ['', 'empty'],
    ['.', 'dot'],
    ['./', 'dot slash'],
    ['//', 'only slashes'],
    ['x'.repeat(MAX_PATH + 1), 'too long'],
    ['a/'.repeat(300), 'long, even though it would normalise shorter'],
  ];
  for (const [bad, why] of traversal) {
    test(`refuses ${why}: ${JSON.stringify(bad.slice(0, 24))}`, () => {
      assert.throws(
        () => normalizeWorkspacePath(bad),
        (e: unknown) =>
          e instanceof WorkspacePathError &&
          e instanceof DomainError &&
          e.code === 'validation' &&
          e.status === 400 &&
          e.errors?.[0]?.field === 'path',
      );
    });
  }

  test('accepts exactly MAX_PATH characters', () => {
    assert.equal(normalizeWorkspacePath('x'.repeat(MAX_PATH)).length, MAX_PATH);
  });

  test('refuses non-strings', () => {
    for (const v of [null, undefined, 1, {}, ['a'], true])
      assert.throws(() => normalizeWorkspacePath(v), WorkspacePathError);
  });

  test('the field name can be chosen', () => {
    assert.throws(
      () => normalizeWorkspacePath('../x', 'artifact'),
      (e: WorkspacePathError) => e.errors?.[0]?.field === 'artifact',
    );
  });
});

describe('normalizeWorkspaceDir', () => {
  test('absent, "", "." and "./" mean the root', () => {
    for (const v of [undefined, null, '', '.', './']) assert.equal(normalizeWorkspaceDir(v), '');
    assert.equal(normalizeWorkspaceDir('docs/'), 'docs');
    assert.throws(() => normalizeWorkspaceDir('../'), WorkspacePathError);
    assert.throws(() => normalizeWorkspaceDir('/'), WorkspacePathError);
  });
});

describe('isInside', () => {
  test('compares whole segments', () => {
    assert.equal(isInside('docs', 'docs/a.md'), true);
    assert.equal(isInside('docs', 'docs'), true);
    assert.equal(isInside('docs', 'docs2/a.md'), false);
    assert.equal(isInside('docs/a', 'docs/ab/c'), false);
    assert.equal(isInside('', 'anything'), true);
  });
});
