/**
 * The runtime over HTTP, what a turn's reply can be: iteration limits, provider failures, NUL and
 * surrogate text, huge tokens, tool path escapes, auth on streams and the offline provider — through
 * the real SDKs against a fake OpenAI-compatible server on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { ADMIN, startApp, type TestApp } from './support/app';
import { FakeLlm } from './support/fake-llm';
import { Client, newUser } from './support/http';
import { bind, setupPack } from './support/chat-pack';
import { names, readStream } from './support/sse';

describe('chat and stream', () => {
  let t: TestApp;
  let fake: FakeLlm;
  let a: Client;
  let b: Client;
  let packId: number;
  const stream = (q: string, c: Client | null = a, extra: Parameters<typeof readStream>[1] = {}) =>
    readStream(`${t.url}/agent/stream?${q}`, {
      ...extra,
      headers: { ...(c?.cookie ? { cookie: c.cookie } : {}), ...extra.headers },
    });

  beforeAll(async () => {
    fake = await FakeLlm.start();
    t = await startApp();
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    b = await newUser(t.url, a, 'bob');
    packId = (await setupPack(a, fake)).packId;
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  test('max_iterations → error, then done and close; the sync API answers 422', async () => {
    const p = (await setupPack(a, fake, { maxIterations: 2 })).packId;
    await bind(a, 'loop', p);
    const call = { tool_calls: [{ name: 'list_files', arguments: {} }] };
    fake.enqueue(call, call);
    const s = await stream('message=loop&project_slug=loop');
    assert.equal(s.events.find((e) => e.event === 'error')!.data.code, 'max_iterations');
    assert.deepEqual(names(s.events).slice(-3), ['workflow', 'done', 'close']);
    fake.enqueue(call, call);
    assert.equal((await a.post('/agent/chat', { message: 'loop', project_slug: 'loop' })).status, 422);
  });

  test('provider 500 and a garbage stream become clean error events', async () => {
    await bind(a, 'fail', packId);
    fake.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
    const s = await stream('message=x&project_slug=fail');
    const err = s.events.find((e) => e.event === 'error')!;
    assert.equal(err.data.code, 'provider_http');
    assert.ok(!err.data.message.includes('sk-user-key'));
    assert.deepEqual(names(s.events).slice(-3), ['workflow', 'done', 'close']);
    const failed = (await a.get('/agent/history/fail')).body.messages.at(-1);
    assert.deepEqual(
      [failed.role, failed.state, failed.error.code, failed.content],
      ['assistant', 'failed', 'provider_http', ''],
    );
    fake.enqueue({ garbage: true });
    const g = await stream('message=x&project_slug=fail');
    assert.equal(g.events.find((e) => e.event === 'error')!.data.code, 'provider_protocol');
    assert.equal(g.events.at(-1)!.event, 'close');
  });

  test('NUL characters from the model are stored as U+FFFD, so the turn and its history are recorded', async () => {
    await bind(a, 'nul', packId);
    fake.enqueue({ text: 'a\u0000b' });
    const s = await stream('message=x&project_slug=nul');
    const done = s.events.find((e) => e.event === 'done')!;
    assert.equal(done.data.state, 'done');
    assert.equal(done.data.reply, 'a\uFFFDb');
    const h = await a.get('/agent/history/nul');
    assert.equal(h.body.messages.at(-1).content, 'a\uFFFDb');
    const replay = await stream('', a, { headers: { 'last-event-id': `${done.id.split(':')[0]}:0` } });
    assert.deepEqual(names(replay.events), names(s.events), 'the stored events replay in full');
  });

  test('an emoji whose surrogate pair the model splits across two chunks arrives whole; the turn is recorded', async () => {
    await bind(a, 'emoji', packId);
    fake.enqueue({ chunks: ['smile ', '\ud83d', '\ude00', ' end'] });
    const s = await stream('message=x&project_slug=emoji');
    const done = s.events.find((e) => e.event === 'done')!;
    assert.equal(done.data.state, 'done');
    assert.equal(done.data.reply, 'smile \u{1F600} end');
    assert.equal(
      s.events
        .filter((e) => e.event === 'content')
        .map((e) => e.data.delta)
        .join(''),
      'smile \u{1F600} end',
    );
    assert.deepEqual(names(s.events).slice(-3), ['workflow', 'done', 'close']);
    assert.equal(s.events.filter((e) => e.event === 'done').length, 1);
    const runId = done.id.split(':')[0];
    const run = await t.created.app.get(DataSource).query('SELECT state FROM runs WHERE id = $1', [runId]);
    assert.equal(run[0].state, 'done');
    const h = await a.get('/agent/history/emoji');
    assert.equal(h.body.messages.at(-1).content, 'smile \u{1F600} end');
    const replay = await stream('', a, { headers: { 'last-event-id': `${runId}:0` } });
    assert.deepEqual(names(replay.events), names(s.events), 'the stored events replay in full');
  });

  test('a lone surrogate in a chat message is stored as U+FFFD; the turn ends done with its history', async () => {
    // the offline provider quotes the message in its reply and in the artifact it writes (a tool call)
    const pdlc = (await a.get('/agent/workflows')).body.workflows.find((w: { slug: string }) => w.slug === 'pdlc');
    await bind(a, 'lone', pdlc.pack_id);
    const r = await a.post('/agent/chat', { message: 'Build x\udfffy', project_slug: 'lone' });
    assert.equal(r.status, 200, r.text);
    const run = await t.created.app.get(DataSource).query('SELECT state FROM runs WHERE id = $1', [r.body.run_id]);
    assert.equal(run[0].state, 'done');
    const h = await a.get('/agent/history/lone');
    assert.deepEqual(
      h.body.messages.map((m: { role: string }) => m.role),
      ['user', 'assistant'],
    );
    assert.equal(h.body.messages[0].content, 'Build x\uFFFDy');
    const replay = await stream('', a, { headers: { 'last-event-id': `${r.body.run_id}:0` } });
    assert.equal(replay.events.at(-1)!.event, 'close');
    assert.equal(replay.events.filter((e) => e.event === 'done').length, 1);
  });

  test('one huge model token: content events stay small, the reply is capped with reply_too_large, the run is recorded', async () => {
    await bind(a, 'huge', packId);
    fake.enqueue({ chunks: ['start ', 'x'.repeat(40_000), 'y'.repeat(3 * 1024 * 1024)] });
    const s = await stream('message=x&project_slug=huge');
    const contents = s.events.filter((e) => e.event === 'content');
    assert.equal(
      contents.map((e) => e.data.delta).join(''),
      'start ' + 'x'.repeat(40_000),
      'the pieces before the cap arrive whole',
    );
    assert.ok(
      contents.every((e) => e.data.delta.length <= 16_384),
      'no content event above 16 KiB',
    );
    assert.equal(s.events.find((e) => e.event === 'error')!.data.code, 'reply_too_large');
    assert.deepEqual(names(s.events).slice(-3), ['workflow', 'done', 'close']);
    assert.equal(s.events.find((e) => e.event === 'done')!.data.state, 'error');
    const runId = s.events[0].id.split(':')[0];
    const run = await t.created.app.get(DataSource).query('SELECT state, reply FROM runs WHERE id = $1', [runId]);
    assert.equal(run[0].state, 'error');
    const sync = await a.post('/agent/chat', { message: 'again', project_slug: 'huge' });
    assert.equal(sync.status, 200, 'the fake has no more huge turns queued');
    fake.enqueue({ chunks: ['z'.repeat(2 * 1024 * 1024)] });
    const r = await a.post('/agent/chat', { message: 'huge', project_slug: 'huge' });
    assert.equal(r.status, 502);
    assert.equal(r.body.code, 'turn.reply_too_large');
  });

  test('a reply is stored once: in the history entry, not again on the run row', async () => {
    await bind(a, 'once', packId);
    fake.enqueue({ text: 'the only copy' });
    const r = await a.post('/agent/chat', { message: 'x', project_slug: 'once' });
    assert.equal(r.status, 200, r.text);
    const run = await t.created.app.get(DataSource).query('SELECT reply FROM runs WHERE id = $1', [r.body.run_id]);
    assert.equal(run[0].reply, '');
    const h = await a.get('/agent/history/once');
    assert.equal(h.body.messages.at(-1).content, 'the only copy');
  });

  test('path traversal by the model is refused as a tool error and the loop goes on', async () => {
    await bind(a, 'escape', packId);
    fake.enqueue(
      {
        tool_calls: [
          { name: 'write_file', arguments: { path: '../../etc/evil', content: 'x' } },
          { name: 'read_file', arguments: { path: '/etc/passwd' } },
        ],
      },
      { text: 'could not' },
    );
    const s = await stream('message=x&project_slug=escape');
    const results = s.events.filter((e) => e.event === 'tool_result');
    assert.deepEqual(
      results.map((e) => e.data.ok),
      [false, false],
    );
    assert.match(results[0].data.error, /\.\./);
    assert.equal(s.events.find((e) => e.event === 'done')!.data.state, 'done');
    const files = (await a.get('/studio/api/projects/escape/files')).body.map((f: { path: string }) => f.path);
    assert.deepEqual(files, ['docs/out.md']);
  });

  test('auth: anonymous stream with project_slug is 401; other users cannot read history or state', async () => {
    const anon = await stream('message=x&project_slug=sync', null);
    assert.equal(anon.status, 401);
    assert.equal(anon.body.status, 401);
    assert.equal((await b.get('/agent/history/sync')).status, 404);
    assert.equal((await b.get('/agent/workflows/sync')).status, 404);
    assert.equal((await new Client(t.url).post('/agent/chat', { message: 'x', project_slug: 'sync' })).status, 401);
    assert.equal(
      (await a.post('/agent/chat', { message: 'x', project_slug: 'nopack' })).status,
      400,
      'a project without a pack',
    );
    assert.equal(
      (await a.post('/agent/chat', { message: 'x'.repeat(32 * 1024 + 1), project_slug: 'sync' })).status,
      400,
    );
  });

  test('the offline provider end to end on a project (no model, no network)', async () => {
    const pdlc = (await a.get('/agent/workflows')).body.workflows.find((w: { slug: string }) => w.slug === 'pdlc');
    await bind(a, 'offline', pdlc.pack_id);
    await a.put('/studio/api/projects/offline/files/notes.md', { content: '# Notes\nusers want speed' });
    const before = fake.requests.length;
    const r = await a.post('/agent/chat', { message: 'Build a todo app', project_slug: 'offline' });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.reply, /No language model is configured/);
    assert.deepEqual(
      r.body.tool_calls.map((c: { name: string }) => c.name),
      ['list_files', 'read_file', 'write_file'],
    );
    const art = await a.get('/studio/api/projects/offline/files/docs/discovery.md');
    assert.match(art.body.content, /Build a todo app/);
    assert.equal(fake.requests.length, before, 'no network call');
  });
});
