import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isInside, normalizeWorkspaceDir, normalizeWorkspacePath, WorkspacePathError } from './workspace-path';

describe('normalizeWorkspacePath', () => {
  test('keeps good relative paths and collapses empty and "." segments', () => {
    assert.equal(normalizeWorkspacePath('docs/design.md'), 'docs/design.md');
    assert.equal(normalizeWorkspacePath('./docs//a/./b.md'), 'docs/a/b.md');
    assert.equal(normalizeWorkspacePath('%2e%2e/x'), '%2e%2e/x', 'no URL decoding: a literal, harmless name');
    assert.equal(normalizeWorkspacePath('..foo/bar..'), '..foo/bar..', 'dots inside a name are fine');
  });

  for (const bad of ['../x', 'a/../../x', 'a/..', '/etc/passwd', 'C:\\x', 'c:/x', 'a\\..\\b', 'a\u0000b', 'a\nb', '', '.', './', '//', 'x'.repeat(513)]) {
    test(`refuses ${JSON.stringify(bad.slice(0, 20))}`, () => {
      assert.throws(() => normalizeWorkspacePath(bad), WorkspacePathError);
    });
  }

  test('refuses non-strings', () => {
    for (const v of [null, undefined, 1, {}, ['a']]) assert.throws(() => normalizeWorkspacePath(v), WorkspacePathError);
  });

  test('directories: empty means the root', () => {
    assert.equal(normalizeWorkspaceDir(undefined), '');
    assert.equal(normalizeWorkspaceDir('.'), '');
    assert.equal(normalizeWorkspaceDir('docs/'), 'docs');
    assert.throws(() => normalizeWorkspaceDir('../'), WorkspacePathError);
  });

  test('isInside compares whole segments', () => {
    assert.equal(isInside('docs', 'docs/a.md'), true);
    assert.equal(isInside('docs', 'docs'), true);
    assert.equal(isInside('docs', 'docs2/a.md'), false);
    assert.equal(isInside('', 'anything'), true);
  });
});
