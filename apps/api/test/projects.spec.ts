/** Projects, workspace files with revisions, and /agent/workflows, for two users. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client, newUser } from './support/http';

describe('projects and workspace files', () => {
  let t: TestApp;
  let a: Client;
  let b: Client;
  let pdlc: { pack_id: number; stages: string[] };
  before(async () => {
    t = await startApp();
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    b = await newUser(t.url, a, 'bob');
    pdlc = (await a.get('/agent/workflows')).body.workflows.find((w: { slug: string }) => w.slug === 'pdlc');
  });
  after(() => t.close());

  test('create, list, get and delete a project; duplicate slug is 409', async () => {
    const r = await a.post('/studio/api/projects', { slug: 'alpha', name: 'Alpha', pack_id: pdlc.pack_id });
    assert.equal(r.status, 201);
    assert.equal(r.body.stage, 'discover');
    assert.equal(r.body.domain, 'pdlc');
    assert.equal((await a.post('/studio/api/projects', { slug: 'alpha' })).status, 409);
    assert.equal((await a.post('/studio/api/projects', { slug: 'Bad Slug' })).status, 400);
    assert.equal((await a.post('/studio/api/projects', { slug: 'x', pack_id: 999999 })).status, 400);
    assert.equal((await a.post('/studio/api/projects', { slug: 'x', owner_id: 2 })).status, 400);
    assert.ok((await a.get('/studio/api/projects')).body.some((p: { slug: string }) => p.slug === 'alpha'));
    assert.equal((await a.get('/studio/api/projects/alpha')).body.name, 'Alpha');
    await a.post('/studio/api/projects', { slug: 'gone' });
    assert.equal((await a.delete('/studio/api/projects/gone')).status, 204);
    assert.equal((await a.get('/studio/api/projects/gone')).status, 404);
  });

  test('files: write, overwrite, read, list, nested paths, revisions, delete', async () => {
    await a.post('/studio/api/projects', { slug: 'files' });
    const w1 = await a.put('/studio/api/projects/files/files/docs/a/b.md', { content: '# one' });
    assert.equal(w1.status, 200);
    assert.deepEqual(w1.body, { path: 'docs/a/b.md', change: 'added', revision: 1 });
    const w2 = await a.put('/studio/api/projects/files/files/docs/a/b.md', { content: '# two' });
    assert.deepEqual(w2.body, { path: 'docs/a/b.md', change: 'modified', revision: 2 });
    const f = await a.get('/studio/api/projects/files/files/docs/a/b.md');
    assert.equal(f.body.content, '# two');
    assert.equal(f.body.revision, 2);
    assert.equal((await a.get('/studio/api/projects/files/files/docs/a/b.md?revision=1')).body.content, '# one');
    const list = await a.get('/studio/api/projects/files/files');
    assert.deepEqual(list.body.map((x: { path: string; size: number; revision: number }) => [x.path, x.size, x.revision]), [['docs/a/b.md', 5, 2]]);
    assert.equal((await a.delete('/studio/api/projects/files/files/docs/a/b.md')).status, 204);
    const revs = await a.get('/studio/api/projects/files/files/docs/a/b.md/revisions');
    assert.deepEqual(revs.body.map((r: { revision: number; change: string }) => [r.revision, r.change]), [[3, 'deleted'], [2, 'modified'], [1, 'added']]);
    assert.equal((await a.get('/studio/api/projects/files/files/docs/a/b.md')).status, 404);
    assert.equal((await a.get('/studio/api/projects/files/files/nope.md')).status, 404);
  });

  test('path traversal through the HTTP API is refused and nothing is written', async () => {
    await a.post('/studio/api/projects', { slug: 'trav' });
    for (const p of ['..%2fescape.md', 'docs/..%2f..%2fescape.md', 'a%5C..%5Cb', '%2Fetc%2Fpasswd', 'docs/%00x']) {
      const r = await a.put(`/studio/api/projects/trav/files/${p}`, { content: 'x' });
      assert.equal(r.status, 400, p);
    }
    const r = await fetch(`${t.url}/studio/api/projects/trav/files/../../escape`, { method: 'PUT', headers: { cookie: a.cookie!, 'content-type': 'application/json' }, body: '{"content":"x"}' });
    assert.notEqual(r.status, 200);
    assert.deepEqual((await a.get('/studio/api/projects/trav/files')).body, []);
  });

  test('a file over 1 MiB is refused', async () => {
    await a.post('/studio/api/projects', { slug: 'big' });
    const r = await a.put('/studio/api/projects/big/files/big.txt', { content: 'x'.repeat(1024 * 1024 + 1) });
    assert.ok(r.status === 400 || r.status === 413, String(r.status));
    assert.deepEqual((await a.get('/studio/api/projects/big/files')).body, []);
  });

  test("another user's project is 404 everywhere", async () => {
    await a.post('/studio/api/projects', { slug: 'secret' });
    await a.put('/studio/api/projects/secret/files/notes.md', { content: 'private' });
    for (const path of ['/studio/api/projects/secret', '/studio/api/projects/secret/files', '/studio/api/projects/secret/files/notes.md', '/studio/api/projects/secret/files/notes.md/revisions', '/agent/workflows/secret']) {
      assert.equal((await b.get(path)).status, 404, path);
    }
    assert.equal((await b.put('/studio/api/projects/secret/files/notes.md', { content: 'x' })).status, 404);
    assert.equal((await b.delete('/studio/api/projects/secret/files/notes.md')).status, 404);
    assert.equal((await b.delete('/studio/api/projects/secret')).status, 404);
    assert.equal((await a.get('/studio/api/projects/secret/files/notes.md')).body.content, 'private');
  });
});

describe('/agent/workflows', () => {
  let t: TestApp;
  let a: Client;
  let b: Client;
  before(async () => {
    t = await startApp();
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    b = await newUser(t.url, a, 'bob');
  });
  after(() => t.close());

  test('anonymous: system packs only; logged in: system + own, never another user\'s; three equal lists', async () => {
    const mine = await a.post('/studio/api/workflows', { name: 'Mine', slug: 'mine' });
    assert.equal(mine.status, 201);
    const anon = await new Client(t.url).get('/agent/workflows');
    assert.equal(anon.status, 200);
    assert.ok(anon.body.workflows.length >= 1);
    assert.ok(anon.body.workflows.every((w: { is_system: boolean }) => w.is_system));
    const pdlc = anon.body.workflows.find((w: { id: string }) => w.id === 'pdlc');
    assert.deepEqual(Object.keys(pdlc).sort(), ['domain', 'id', 'is_system', 'name', 'pack_id', 'slug', 'stages']);
    assert.deepEqual(pdlc.stages, ['discover', 'design', 'develop', 'test', 'deploy', 'iterate']);
    const own = await a.get('/agent/workflows');
    assert.ok(own.body.workflows.some((w: { slug: string }) => w.slug === 'mine'));
    assert.deepEqual(own.body.packs, own.body.workflows);
    assert.deepEqual(own.body.domains, own.body.workflows);
    assert.ok(!(await b.get('/agent/workflows')).body.workflows.some((w: { slug: string }) => w.slug === 'mine'));
  });

  test('PUT binds pack and stage, creating the project; validation by field', async () => {
    const packs = (await a.get('/agent/workflows')).body.workflows;
    const pdlc = packs.find((w: { id: string }) => w.id === 'pdlc');
    const r = await a.put('/agent/workflows/beta', { domain: 'pdlc', stage: 'design', pack_id: pdlc.pack_id });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { project_slug: 'beta', domain: 'pdlc', stage: 'design', pack_id: pdlc.pack_id, stages: pdlc.stages, awaiting_gate: null });
    assert.deepEqual((await a.get('/agent/workflows/beta')).body, r.body);
    const bad = async (body: unknown, field: string) => {
      const x = await a.put('/agent/workflows/beta', body);
      assert.equal(x.status, 400, JSON.stringify(body));
      assert.ok(x.body.errors.some((e: { field: string }) => e.field === field), JSON.stringify(x.body));
    };
    await bad({ domain: 'sdlc', stage: 'design', pack_id: pdlc.pack_id }, 'domain');
    await bad({ domain: 'pdlc', stage: 'nope', pack_id: pdlc.pack_id }, 'stage');
    await bad({ domain: 'pdlc', stage: 'design', pack_id: 999999 }, 'pack_id');
    await bad({ domain: 'pdlc', stage: 'design' }, 'pack_id');
    const bobs = await b.post('/studio/api/workflows', { name: 'Bobs', slug: 'bobs' });
    await bad({ domain: 'pdlc', stage: 'discover', pack_id: bobs.body.id }, 'pack_id');
    assert.equal((await a.get('/agent/workflows/unknown-project')).status, 404);
    const anon = new Client(t.url);
    assert.equal((await anon.get('/agent/workflows/beta')).status, 401);
    assert.equal((await anon.put('/agent/workflows/beta', { domain: 'pdlc', stage: 'design', pack_id: pdlc.pack_id })).status, 401);
  });
});
