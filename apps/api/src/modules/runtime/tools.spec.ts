import assert from 'node:assert/strict';
import { TOOL_NAMES, type ToolName } from './runtime.types';
import { MemoryWorkspace } from './test-support';
import {
  MAX_FILE_BYTES,
  MAX_READ_LINES,
  MAX_SEARCH_HITS,
  MAX_TOOL_OUTPUT_BYTES,
  offeredTools,
  runTool,
  toolMessageContent,
  TOOLS,
  toolSpecs,
  truncateOutput,
} from './tools';

function ctx(
  files: Record<string, string> = {},
  allowed: readonly ToolName[] = TOOL_NAMES,
  readOnly = false,
  maxFiles?: number,
) {
  const workspace = new MemoryWorkspace(files, readOnly, maxFiles);
  return { workspace, allowed, written: new Set<string>() };
}

describe('tool table', () => {
  test('one entry per tool name, each with a JSON schema', () => {
    assert.deepEqual(Object.keys(TOOLS).sort(), [...TOOL_NAMES].sort());
    for (const spec of toolSpecs(TOOL_NAMES)) {
      assert.equal((spec.parameters as { type: string }).type, 'object');
      assert.ok(spec.description.length > 10);
    }
    assert.deepEqual(offeredTools(['write_file', 'list_files'], false), ['list_files', 'write_file']);
    assert.deepEqual(offeredTools(TOOL_NAMES, true), ['list_files', 'read_file', 'search_files']);
  });
});

describe('runTool', () => {
  test('list_files lists everything or a folder, by segment', async () => {
    const c = ctx({ 'docs/a.md': 'a', 'docs2/b.md': 'bb', 'c.txt': 'ccc' });
    assert.equal(
      (await runTool('list_files', {}, c)).output,
      'c.txt (3 bytes, rev 1)\ndocs/a.md (1 bytes, rev 1)\ndocs2/b.md (2 bytes, rev 1)',
    );
    assert.equal((await runTool('list_files', { path: 'docs' }, c)).output, 'docs/a.md (1 bytes, rev 1)');
    assert.equal((await runTool('list_files', { path: 'nope' }, c)).output, 'No files under nope/.');
    assert.equal((await runTool('list_files', {}, ctx())).output, 'The workspace is empty.');
  });

  test('read_file with offset and limit in lines', async () => {
    const c = ctx({ 'f.txt': 'l0\nl1\nl2\nl3\nl4' });
    assert.equal((await runTool('read_file', { path: 'f.txt' }, c)).output, 'l0\nl1\nl2\nl3\nl4');
    assert.equal(
      (await runTool('read_file', { path: 'f.txt', offset: 1, limit: 2 }, c)).output,
      'l1\nl2\n… (2 more lines; continue with offset 3)',
    );
    assert.match((await runTool('read_file', { path: 'f.txt', offset: 9 }, c)).error!, /past its end/);
    assert.match((await runTool('read_file', { path: 'f.txt', limit: 0 }, c)).error!, /limit/);
    assert.match((await runTool('read_file', { path: 'f.txt', offset: 'x' }, c)).error!, /offset/);
    assert.match((await runTool('read_file', { path: 'missing.md' }, c)).error!, /no such file: missing\.md/);
    const long = ctx({ 'big.txt': Array.from({ length: MAX_READ_LINES + 10 }, (_, i) => `${i}`).join('\n') });
    assert.match(
      (await runTool('read_file', { path: 'big.txt', limit: 999999 }, long)).output,
      /10 more lines; continue with offset 2000\)$/,
    );
  });

  test('output is bounded to 16 KiB', async () => {
    const c = ctx({ 'big.md': 'é'.repeat(20_000) });
    const r = await runTool('read_file', { path: 'big.md' }, c);
    assert.ok(r.ok);
    assert.ok(Buffer.byteLength(r.output) <= MAX_TOOL_OUTPUT_BYTES);
    assert.match(r.output, /output truncated at 16 KiB\)$/);
    assert.ok(!r.output.includes('\uFFFD'), 'never cut inside a character');
    assert.equal(truncateOutput('short'), 'short');
  });

  test('write_file creates then modifies, recording what it wrote', async () => {
    const c = ctx();
    const r1 = await runTool('write_file', { path: './docs//plan.md', content: 'v1' }, c);
    assert.deepEqual(r1, {
      ok: true,
      output: 'Created docs/plan.md (revision 1).',
      files: [{ path: 'docs/plan.md', change: 'added', revision: 1 }],
    });
    const r2 = await runTool('write_file', { path: 'docs/plan.md', content: 'v2' }, c);
    assert.deepEqual(r2.files, [{ path: 'docs/plan.md', change: 'modified', revision: 2 }]);
    assert.deepEqual([...c.written], ['docs/plan.md']);
    // the same content again changes nothing, and the model is told so
    const r3 = await runTool('write_file', { path: 'docs/plan.md', content: 'v2' }, c);
    assert.deepEqual(r3, { ok: true, output: 'docs/plan.md already had this content (revision 2); nothing changed.' });
    const r4 = await runTool('edit_file', { path: 'docs/plan.md', old: 'v2', new: 'v2' }, c);
    assert.deepEqual(r4, { ok: true, output: 'docs/plan.md already had this content (revision 2); nothing changed.' });
    assert.match((await runTool('write_file', { path: 'a.md' }, c)).error!, /"content" is required/);
  });

  test('a file over 1 MiB and a full workspace are tool errors', async () => {
    const c = ctx({}, TOOL_NAMES, false, 1);
    const big = await runTool('write_file', { path: 'big.md', content: 'x'.repeat(MAX_FILE_BYTES + 1) }, c);
    assert.equal(big.ok, false);
    assert.match(big.error!, /at most 1 MiB/);
    assert.ok(
      (await runTool('write_file', { path: 'one.md', content: 'x'.repeat(MAX_FILE_BYTES) }, c)).ok,
      'exactly 1 MiB is fine',
    );
    const full = await runTool('write_file', { path: 'two.md', content: 'x' }, c);
    assert.equal(full.ok, false);
    assert.match(full.error!, /at most 1 files/);
  });

  test('edit_file replaces exactly one occurrence', async () => {
    const c = ctx({ 'a.md': 'one two two three' });
    assert.match((await runTool('edit_file', { path: 'a.md', old: 'two', new: '2' }, c)).error!, /more than once/);
    assert.match((await runTool('edit_file', { path: 'a.md', old: 'four', new: '4' }, c)).error!, /not found/);
    assert.match((await runTool('edit_file', { path: 'a.md', old: '', new: '4' }, c)).error!, /must not be empty/);
    assert.match((await runTool('edit_file', { path: 'b.md', old: 'x', new: 'y' }, c)).error!, /no such file/);
    const ok = await runTool('edit_file', { path: 'a.md', old: 'one', new: '1' }, c);
    assert.equal(ok.output, 'Edited a.md (revision 2).');
    assert.equal(c.workspace.content('a.md'), '1 two two three');
  });

  test('search_files is case-insensitive, can be scoped, and is bounded', async () => {
    const c = ctx({ 'docs/a.md': 'Hello\nworld', 'b.md': 'hello again' });
    assert.equal(
      (await runTool('search_files', { query: 'HELLO' }, c)).output,
      'b.md:1: hello again\ndocs/a.md:1: Hello',
    );
    assert.equal((await runTool('search_files', { query: 'hello', path: 'docs' }, c)).output, 'docs/a.md:1: Hello');
    assert.equal((await runTool('search_files', { query: 'zzz' }, c)).output, 'No matches for "zzz".');
    assert.match((await runTool('search_files', { query: ' ' }, c)).error!, /must not be empty/);
    const many = ctx({ 'm.md': Array.from({ length: MAX_SEARCH_HITS + 5 }, () => 'hit').join('\n') });
    assert.match((await runTool('search_files', { query: 'hit' }, many)).output, /… \(5 more matches/);
  });

  test('path escapes are tool errors from the shared helper', async () => {
    const c = ctx({ 'a.md': 'a' });
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['read_file', { path: '../x' }, /\.\./],
      ['read_file', { path: 'docs/../../x' }, /\.\./],
      ['read_file', { path: '/etc/passwd' }, /relative/],
      ['read_file', { path: 'C:/x' }, /relative/],
      ['write_file', { path: 'a\\b.md', content: 'x' }, /backslash/],
      ['write_file', { path: 'a\u0000b', content: 'x' }, /control/],
      ['list_files', { path: '../' }, /\.\./],
      ['search_files', { query: 'a', path: '/' }, /relative/],
      ['edit_file', { path: '..', old: 'a', new: 'b' }, /\.\./],
      ['read_file', { path: 42 }, /string/],
    ];
    for (const [name, args, re] of cases) {
      const r = await runTool(name, args, c);
      assert.equal(r.ok, false, `${name} ${JSON.stringify(args)}`);
      assert.match(r.error!, re, `${name} ${JSON.stringify(args)}`);
    }
    assert.deepEqual(c.workspace.writes, []);
  });

  test('tools outside the allowlist, unknown tools and bad arguments are refused', async () => {
    const c = ctx({ 'a.md': 'a' }, ['read_file']);
    assert.match(
      (await runTool('write_file', { path: 'b.md', content: 'x' }, c)).error!,
      /"write_file" is not allowed/,
    );
    assert.match((await runTool('rm_rf', {}, c)).error!, /unknown tool "rm_rf"/);
    assert.match((await runTool('constructor', {}, c)).error!, /unknown tool/);
    assert.match((await runTool('read_file', {}, c, 'tool arguments are not valid JSON: x')).error!, /not valid JSON/);
    assert.deepEqual(c.workspace.writes, []);
  });

  test('a read-only workspace refuses writes and edits', async () => {
    const c = ctx({ 'a.md': 'a' }, TOOL_NAMES, true);
    assert.match((await runTool('write_file', { path: 'b.md', content: 'x' }, c)).error!, /read-only/);
    assert.match((await runTool('edit_file', { path: 'a.md', old: 'a', new: 'b' }, c)).error!, /read-only/);
  });

  test('an unexpected failure is a generic tool error (no internals leak)', async () => {
    const c = ctx();
    c.workspace.list = async () => {
      throw new Error('SELECT secret FROM x');
    };
    const r = await runTool('list_files', {}, c);
    assert.deepEqual(r, { ok: false, output: '', error: 'the list_files tool failed unexpectedly' });
    assert.equal(toolMessageContent(r), '{"ok":false,"error":"the list_files tool failed unexpectedly"}');
  });
});
