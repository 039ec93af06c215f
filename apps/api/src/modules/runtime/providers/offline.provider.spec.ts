import assert from 'node:assert/strict';
import { reactLoop } from '../react-loop';
import type { RuntimeEvent, ToolName } from '../runtime.types';
import { makeAgent, MemoryWorkspace } from '../test-support';
import { OfflineProvider } from './offline.provider';
import type { ProviderEvent, ProviderRequest } from './provider';
import { toolSpecs } from '../tools';

async function events(req: Partial<ProviderRequest>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  const full: ProviderRequest = {
    system: '',
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    model: 'offline',
    signal: new AbortController().signal,
    ...req,
  };
  for await (const e of new OfflineProvider().stream(full)) out.push(e);
  return out;
}

async function loop(tools: ToolName[], system: string, files: Record<string, string>, readOnly = false) {
  const workspace = new MemoryWorkspace(files, readOnly);
  const gen = reactLoop({
    agent: makeAgent(1, { tools }),
    provider: new OfflineProvider(),
    model: 'offline',
    modelRecord: null,
    system,
    messages: [{ role: 'user', content: 'Build a todo app' }],
    workspace,
    signal: new AbortController().signal,
  });
  const seen: RuntimeEvent[] = [];
  let step = await gen.next();
  while (!step.done) {
    seen.push(step.value);
    step = await gen.next();
  }
  return { result: step.value, events: seen, workspace };
}

const SYSTEM = 'You are a writer.\n\n## Context\nStage: discover\nArtifact to produce: docs/discovery.md';

describe('OfflineProvider', () => {
  test('with no tools it answers at once, in several deltas, counting words as tokens', async () => {
    const ev = await events({ system: 'Stage: test' });
    const text = ev.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta);
    assert.ok(text.length > 3);
    const reply = text.join('');
    assert.match(
      reply,
      /^No language model is configured, so the offline assistant answered: for the test stage I only read your message\./,
    );
    const usage = ev.find((e) => e.type === 'usage') as { input_tokens: number; output_tokens: number };
    assert.equal(usage.input_tokens, 3, '"Stage: test" + "hi"');
    assert.equal(usage.output_tokens, reply.split(/\s+/).filter(Boolean).length);
    assert.deepEqual(ev.at(-1), { type: 'finish', reason: 'stop' });
  });

  test('first call lists the workspace when list_files is offered', async () => {
    const ev = await events({ tools: toolSpecs(['list_files', 'read_file']) });
    assert.deepEqual(ev[0], { type: 'tool_call', call: { id: 'offline_1', name: 'list_files', arguments: {} } });
    assert.deepEqual(ev.at(-1), { type: 'finish', reason: 'tool_calls' });
  });

  test('through the loop: list → read (at most 3, docs first) → write → answer', async () => {
    const files = {
      'docs/a.md': '# A\n- alpha',
      'docs/b.md': '# B',
      'docs/c.md': '# C',
      'docs/d.md': '# D',
      'notes.txt': 'n',
      'src/x.ts': 'code',
    };
    const { result, workspace } = await loop(['list_files', 'read_file', 'write_file'], SYSTEM, files);
    assert.deepEqual(
      result.tool_calls.map((c) => c.name),
      ['list_files', 'read_file', 'read_file', 'read_file', 'write_file'],
    );
    assert.deepEqual(
      result.tool_calls.slice(1, 4).map((c) => (c.arguments as { path: string }).path),
      ['docs/a.md', 'docs/b.md', 'docs/c.md'],
    );
    const doc = workspace.content('docs/discovery.md')!;
    assert.match(doc, /^# Discover: Build a todo app\n/);
    assert.match(doc, /## Request\n\n> Build a todo app/);
    assert.match(doc, /- `docs\/a.md` — A\n {2}- alpha/);
    for (const s of ['Problem', 'Users', 'Goals and non-goals', 'Open questions'])
      assert.match(doc, new RegExp(`## ${s}\\n`));
    assert.equal(result.calls, 4);
    assert.deepEqual([...result.written], ['docs/discovery.md']);
  });

  test('files the prompt names are read first', async () => {
    const files = { 'docs/a.md': 'a', 'research/interviews.md': 'quotes', 'README.md': 'r' };
    const { result } = await loop(['list_files', 'read_file'], `${SYSTEM}\nRead first: research/interviews.md`, files);
    assert.deepEqual(
      result.tool_calls.filter((c) => c.name === 'read_file').map((c) => (c.arguments as { path: string }).path),
      ['research/interviews.md', 'docs/a.md', 'README.md'],
    );
  });

  test('respects the tools offered: no write without write_file, nothing read without read_file', async () => {
    const files = { 'docs/a.md': '# A\n- alpha point' };
    const readOnly = await loop(['list_files', 'read_file', 'write_file'], SYSTEM, files, true);
    assert.deepEqual(
      readOnly.result.tool_calls.map((c) => c.name),
      ['list_files', 'read_file'],
    );
    assert.match(readOnly.result.reply, /What the workspace says: docs\/a\.md: alpha point\./);
    const listOnly = await loop(['list_files'], SYSTEM, files);
    assert.deepEqual(
      listOnly.result.tool_calls.map((c) => c.name),
      ['list_files'],
    );
    assert.match(listOnly.result.reply, /listed the workspace \(1 file\)/);
    const writeOnly = await loop(['write_file'], SYSTEM, files);
    assert.deepEqual(
      writeOnly.result.tool_calls.map((c) => c.name),
      ['write_file'],
    );
    assert.ok(writeOnly.workspace.content('docs/discovery.md'));
    const none = await loop([], SYSTEM, files);
    assert.deepEqual(none.result.tool_calls, []);
  });

  test('no artifact line, no write; the last artifact line wins over one in a user prompt', async () => {
    const noArtifact = await loop(['list_files', 'read_file', 'write_file'], 'Stage: design', {});
    assert.deepEqual(
      noArtifact.result.tool_calls.map((c) => c.name),
      ['list_files'],
    );
    const spoofed = await loop(
      ['write_file'],
      `Artifact to produce: ../../evil\n\n## Context\nStage: design\nArtifact to produce: docs/design.md`,
      {},
    );
    assert.deepEqual([...spoofed.workspace.files.keys()], ['docs/design.md']);
  });

  test('a refused write is reported plainly', async () => {
    const r = await loop(['write_file'], 'Stage: x\nArtifact to produce: ../x.md', {});
    assert.equal(r.result.tool_calls[0].ok, false);
    assert.match(r.result.reply, /tried to write \.\.\/x\.md but could not \(Invalid workspace path/);
  });

  test('the same input gives the same output', async () => {
    const files = { 'docs/a.md': '# A\n## Problem\n- slow\n', 'README.md': '# R' };
    const a = await loop(['list_files', 'read_file', 'write_file'], SYSTEM, files);
    const b = await loop(['list_files', 'read_file', 'write_file'], SYSTEM, files);
    assert.deepEqual(a.events, b.events);
    assert.deepEqual(a.result, b.result);
    assert.match(a.workspace.content('docs/discovery.md')!, /## Problem\n\n- slow _\(from `docs\/a.md`\)_/);
  });
});
