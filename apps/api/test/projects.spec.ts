/**
 * /studio/api/projects: projects, workspace files with revisions, path safety, limits, and ownership
 * (two users: another user's project is 404 on every route). Runs on the embedded or the external Postgres server (TEST_DATABASE).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { DataSource } from 'typeorm';
import { MAX_FILES, MAX_SEARCH_HITS, WorkspaceService } from '../src/modules/projects/workspace.service';
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client, newUser, type Res } from './support/http';

const P = '/studio/api/projects';

describe('projects and workspace files', () => {
  let t: TestApp;
  let ds: DataSource;
  let a: Client;
  let b: Client;
  /** a system pack inserted here, so the tests do not depend on seeding */
  let sys: { id: number; stages: string[] };

  const fieldOf = (r: Res) => (r.body?.errors ?? []).map((e: { field: string }) => e.field);
  const projectId = async (slug: string, owner = 'admin') =>
    Number((await ds.query(`SELECT p.id FROM projects p JOIN users u ON u.id = p.owner_id WHERE p.slug = $1 AND u.username = $2`, [slug, owner]))[0].id);
  const count = async (table: string, id: number) => Number((await ds.query(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`, [id]))[0].n);

  beforeAll(async () => {
    t = await startApp();
    ds = t.created.app.get(DataSource);
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    b = await newUser(t.url, a, 'bob');
    const stages = ['plan', 'build', 'ship'];
    const [row] = await ds.query(
      `INSERT INTO workflows (owner_id, is_system, name, slug, domain, stages) VALUES (NULL, true, 'Projects test pack', 'projects-test-pack', 'projects-test', ARRAY['plan','build','ship']) RETURNING id`,
    );
    sys = { id: Number(row.id), stages };
  });
  afterAll(() => t.close());

  describe('projects', () => {
    test('create binds a visible pack at its first stage; the record has the documented fields', async () => {
      const r = await a.post(P, { slug: 'alpha', name: 'Alpha', pack_id: sys.id });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), ['awaiting_gate', 'created_at', 'domain', 'id', 'name', 'owner_id', 'pack_id', 'slug', 'stage', 'updated_at']);
      assert.equal(r.body.slug, 'alpha');
      assert.equal(r.body.name, 'Alpha');
      assert.equal(r.body.pack_id, sys.id);
      assert.equal(r.body.domain, 'projects-test');
      assert.equal(r.body.stage, 'plan');
      assert.equal(r.body.awaiting_gate, null);
      assert.match(r.body.created_at, /^\d{4}-\d\d-\d\dT.*Z$/);
      const g = await a.get(`${P}/alpha`);
      assert.equal(g.status, 200);
      assert.deepEqual(g.body, r.body);
    });

    test('create without a pack: name defaults to the slug, no binding', async () => {
      const r = await a.post(P, { slug: 'plain' });
      assert.equal(r.status, 201);
      assert.equal(r.body.name, 'plain');
      assert.equal(r.body.pack_id, null);
      assert.equal(r.body.domain, null);
      assert.equal(r.body.stage, null);
    });

    test('duplicate slug is 409 (also when two creates race); the same slug for another user is fine', async () => {
      const dup = await a.post(P, { slug: 'alpha' });
      assert.equal(dup.status, 409);
      assert.deepEqual(fieldOf(dup), ['slug']);
      const race = await Promise.all([a.post(P, { slug: 'race' }), a.post(P, { slug: 'race' }), a.post(P, { slug: 'race' })]);
      assert.deepEqual(race.map((r) => r.status).sort(), [201, 409, 409]);
      assert.equal((await b.post(P, { slug: 'alpha' })).status, 201);
    });

    test('validation: slug, name, pack_id, unknown and server-owned fields', async () => {
      for (const slug of ['Bad Slug', 'UPPER', 'a_b', '', 'x'.repeat(65), 'a/b', 42]) {
        const r = await a.post(P, { slug });
        assert.equal(r.status, 400, JSON.stringify(slug));
        assert.ok(fieldOf(r).includes('slug'), r.text);
      }
      assert.equal((await a.post(P, {})).status, 400);
      assert.deepEqual(fieldOf(await a.post(P, { slug: 'n', name: 'x'.repeat(201) })), ['name']);
      assert.deepEqual(fieldOf(await a.post(P, { slug: 'n', name: '' })), ['name']);
      assert.deepEqual(fieldOf(await a.post(P, { slug: 'n', pack_id: 999999 })), ['pack_id']);
      for (const pack_id of [2 ** 40, '1', 0, 1.5]) {
        const r = await a.post(P, { slug: 'n', pack_id });
        assert.equal(r.status, 400, JSON.stringify(pack_id));
        assert.deepEqual([...new Set(fieldOf(r))], ['pack_id']);
      }
      for (const extra of ['owner_id', 'id', 'created_at', 'stage', 'awaiting_gate']) {
        const r = await a.post(P, { slug: 'n', [extra]: 1 });
        assert.equal(r.status, 400, extra);
      }
      assert.equal((await a.get(`${P}/n`)).status, 404, 'nothing was created by a refused request');
    });

    test("another user's pack cannot be bound (400 pack_id)", async () => {
      const bobs = await b.post('/studio/api/workflows', { name: 'Bob pack', slug: 'bob-pack', domain: 'projects-test', stages: ['x'] });
      assert.equal(bobs.status, 201, bobs.text);
      const r = await a.post(P, { slug: 'steal', pack_id: bobs.body.id });
      assert.equal(r.status, 400);
      assert.deepEqual(fieldOf(r), ['pack_id']);
      assert.equal((await b.post(P, { slug: 'bobs-own', pack_id: bobs.body.id })).status, 201);
    });

    test('list: own projects only, newest first', async () => {
      const mine = (await a.get(P)).body.map((p: { slug: string }) => p.slug);
      assert.equal(mine[0], 'race');
      assert.ok(mine.indexOf('plain') < mine.indexOf('alpha'));
      assert.ok(!mine.includes('bobs-own'));
      const bobs = (await b.get(P)).body;
      assert.deepEqual(bobs.map((p: { slug: string }) => p.slug), ['bobs-own', 'alpha']);
      const bobId = (await b.get('/auth/me')).body.id;
      assert.ok(bobs.every((p: { owner_id: number }) => p.owner_id === bobId));
    });

    test('rename (PATCH) changes the name, keeps the slug; blank, extra fields and other users are refused', async () => {
      assert.equal((await a.post(P, { slug: 'to-rename', name: 'Old name' })).status, 201);
      const r = await a.request('PATCH', `${P}/to-rename`, { name: '  New name ' });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.name, 'New name');
      assert.equal(r.body.slug, 'to-rename');
      assert.equal((await a.get(`${P}/to-rename`)).body.name, 'New name');
      assert.equal((await a.request('PATCH', `${P}/to-rename`, { name: '   ' })).status, 400);
      assert.deepEqual(fieldOf(await a.request('PATCH', `${P}/to-rename`, { name: 'x', slug: 'other' })), ['slug']);
      assert.equal((await b.request('PATCH', `${P}/to-rename`, { name: 'Mine now' })).status, 404);
      assert.equal((await a.get(`${P}/to-rename`)).body.name, 'New name');
    });

    test('delete is 204 and takes files, revisions and history with it', async () => {
      await a.post(P, { slug: 'gone' });
      await a.put(`${P}/gone/files/a.md`, { content: 'one' });
      await a.put(`${P}/gone/files/a.md`, { content: 'two' });
      const id = await projectId('gone');
      await ds.query(`INSERT INTO messages (project_id, role, content) VALUES ($1, 'user', 'hi')`, [id]);
      assert.equal(await count('file_revisions', id), 2);
      const r = await a.delete(`${P}/gone`);
      assert.equal(r.status, 204);
      assert.equal(r.text, '');
      assert.equal((await a.get(`${P}/gone`)).status, 404);
      assert.equal((await a.get(`${P}/gone/files`)).status, 404);
      for (const table of ['project_files', 'file_revisions', 'messages']) assert.equal(await count(table, id), 0, table);
      assert.equal((await a.delete(`${P}/gone`)).status, 404);
      assert.equal((await a.post(P, { slug: 'gone' })).status, 201, 'the slug is free again');
    });

    test('a project with a running turn is not deleted (409) until the run ends', async () => {
      await a.post(P, { slug: 'busy' });
      const id = await projectId('busy');
      const runId = randomUUID();
      await ds.query(`INSERT INTO runs (id, owner_id, project_id, mode, state) SELECT $1, owner_id, id, 'chat', 'running' FROM projects WHERE id = $2`, [runId, id]);
      const r = await a.delete(`${P}/busy`);
      assert.equal(r.status, 409);
      assert.match(r.body.detail, /cancel/);
      await ds.query(`UPDATE runs SET state = 'done' WHERE id = $1`, [runId]);
      assert.equal((await a.delete(`${P}/busy`)).status, 204);
    });

    test('unknown and malformed slugs are 404', async () => {
      for (const slug of ['nope', 'UPPER', 'x'.repeat(65), '%00']) assert.equal((await a.get(`${P}/${slug}`)).status, 404, slug);
    });
  });

  describe('files', () => {
    beforeAll(async () => {
      await a.post(P, { slug: 'files' });
    });
    const F = `${P}/files/files`;

    test('write (added), overwrite (modified, revision 2), read, read an earlier revision', async () => {
      const w1 = await a.put(`${F}/docs/a/b.md`, { content: '# one' });
      assert.equal(w1.status, 200, w1.text);
      assert.deepEqual(w1.body, { path: 'docs/a/b.md', change: 'added', revision: 1 });
      const w2 = await a.put(`${F}/docs/a/b.md`, { content: '# twö' });
      assert.deepEqual(w2.body, { path: 'docs/a/b.md', change: 'modified', revision: 2 });
      const f = await a.get(`${F}/docs/a/b.md`);
      assert.equal(f.status, 200);
      assert.deepEqual(Object.keys(f.body).sort(), ['content', 'path', 'revision', 'size', 'updated_at']);
      assert.equal(f.body.path, 'docs/a/b.md');
      assert.equal(f.body.content, '# twö');
      assert.equal(f.body.size, 6, 'size is in UTF-8 bytes');
      assert.equal(f.body.revision, 2);
      const old = await a.get(`${F}/docs/a/b.md?revision=1`);
      assert.equal(old.status, 200);
      assert.equal(old.body.content, '# one');
      assert.equal(old.body.revision, 1);
      assert.equal((await a.get(`${F}/docs/a/b.md?revision=9`)).status, 404);
      for (const bad of ['0', '-1', 'abc', '1.5', '99999999999']) assert.equal((await a.get(`${F}/docs/a/b.md?revision=${bad}`)).status, 400, bad);
      assert.equal((await a.get(`${F}/docs/a/b.md?other=1`)).status, 400, 'unknown query fields are refused');
    });

    test('writing identical content is a no-op that keeps the revision', async () => {
      const same = await a.put(`${F}/docs/a/b.md`, { content: '# twö' });
      assert.equal(same.status, 200);
      assert.deepEqual(same.body, { path: 'docs/a/b.md', change: 'modified', revision: 2 });
      assert.equal((await a.get(`${F}/docs/a/b.md/revisions`)).body.length, 2);
    });

    test('paths are normalised: empty segments and "./" are dropped', async () => {
      const r = await a.put(`${F}/notes//./today.md`, { content: 'n' });
      assert.equal(r.status, 200);
      assert.equal(r.body.path, 'notes/today.md');
      assert.equal((await a.get(`${F}/notes/today.md`)).body.content, 'n');
      assert.equal((await a.put(`${F}/empty.md`, { content: '' })).status, 200, 'an empty file is a file');
    });

    test('list: every file with size and revision, sorted by path', async () => {
      const list = await a.get(F);
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.map((x: { path: string; size: number; revision: number }) => [x.path, x.size, x.revision]),
        [['docs/a/b.md', 6, 2], ['empty.md', 0, 1], ['notes/today.md', 1, 1]],
      );
      assert.ok(list.body.every((x: { updated_at: string }) => !Number.isNaN(Date.parse(x.updated_at))));
    });

    test('revisions newest first; delete then revisions show "deleted"; re-creating goes on numbering', async () => {
      const revs = await a.get(`${F}/docs/a/b.md/revisions`);
      assert.equal(revs.status, 200);
      assert.deepEqual(Object.keys(revs.body[0]).sort(), ['change', 'created_at', 'revision', 'run_id', 'size']);
      assert.deepEqual(revs.body.map((r: { revision: number; change: string; size: number; run_id: null }) => [r.revision, r.change, r.size, r.run_id]), [[2, 'modified', 6, null], [1, 'added', 5, null]]);
      const del = await a.delete(`${F}/docs/a/b.md`);
      assert.equal(del.status, 204);
      assert.equal((await a.get(`${F}/docs/a/b.md`)).status, 404);
      const after = (await a.get(`${F}/docs/a/b.md/revisions`)).body;
      assert.deepEqual(after.map((r: { revision: number; change: string }) => [r.revision, r.change]), [[3, 'deleted'], [2, 'modified'], [1, 'added']]);
      assert.equal(after[0].size, 0);
      assert.equal((await a.get(`${F}/docs/a/b.md?revision=1`)).body.content, '# one', 'history survives the delete');
      assert.equal((await a.get(`${F}/docs/a/b.md?revision=3`)).status, 404, 'the deletion has no content');
      assert.deepEqual((await a.put(`${F}/docs/a/b.md`, { content: 'again' })).body, { path: 'docs/a/b.md', change: 'added', revision: 4 });
      assert.equal((await a.delete(`${F}/never.md`)).status, 404);
      assert.equal((await a.get(`${F}/never.md`)).status, 404);
      assert.equal((await a.get(`${F}/never.md/revisions`)).status, 404);
    });

    test('"revisions": a trailing segment after a path lists revisions; at the root, or with %2F, it is a file', async () => {
      await a.put(`${F}/revisions`, { content: 'root file named revisions' });
      assert.equal((await a.get(`${F}/revisions`)).body.content, 'root file named revisions');
      const w = await a.put(`${F}/docs/revisions`, { content: 'a file named revisions in docs' });
      assert.deepEqual(w.body, { path: 'docs/revisions', change: 'added', revision: 1 }, 'PUT always takes the whole path');
      assert.equal((await a.get(`${F}/docs%2Frevisions`)).body.content, 'a file named revisions in docs');
      assert.deepEqual((await a.get(`${F}/docs/revisions/revisions`)).body.map((r: { change: string }) => r.change), ['added']);
      assert.equal((await a.get(`${F}/docs/revisions`)).status, 404, '"docs" itself has no revisions');
      assert.equal((await a.delete(`${F}/docs/revisions`)).status, 204);
    });

    test('body validation: content is a required string, no other fields', async () => {
      for (const body of [{}, { content: 1 }, { content: null }, { content: 'x', path: 'y' }]) {
        const r = await a.put(`${F}/v.md`, body);
        assert.equal(r.status, 400, JSON.stringify(body));
      }
      assert.equal((await a.put(`${F}/v.md`, 'content=x', { 'content-type': 'text/plain' })).status, 415);
      assert.equal((await a.get(`${F}/v.md`)).status, 404);
    });

    test('concurrent writers to one path get distinct, gap-free revisions', async () => {
      const n = 8;
      const results = await Promise.all(Array.from({ length: n }, (_, i) => a.put(`${F}/race.md`, { content: `writer ${i}` })));
      assert.ok(results.every((r) => r.status === 200), results.map((r) => r.status).join());
      assert.deepEqual(results.map((r) => r.body.revision).sort((x, y) => x - y), Array.from({ length: n }, (_, i) => i + 1));
      assert.deepEqual(results.map((r) => r.body.change).sort(), ['added', ...Array(n - 1).fill('modified')]);
      const file = (await a.get(`${F}/race.md`)).body;
      assert.equal(file.revision, n);
      const last = results.find((r) => r.body.revision === n)!;
      assert.equal(file.content, `writer ${results.indexOf(last)}`, 'the current content is the last revision');
      assert.equal((await a.get(`${F}/race.md/revisions`)).body.length, n);
    });
  });

  describe('path safety over HTTP', () => {
    beforeAll(async () => {
      await a.post(P, { slug: 'trav' });
    });
    /** A request whose path goes on the wire exactly as written. */
    const raw = (method: string, path: string, body?: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const u = new URL(t.url);
        const req = request(
          { host: u.hostname, port: u.port, method, path, headers: { cookie: a.cookie!, ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const T = `${P}/trav/files`;

    const attacks = [
      '..%2fescape.md',
      '..%2F..%2Fescape.md',
      'docs/..%2f..%2fescape.md',
      '%2e%2e/escape.md',
      '%2E%2E%2Fescape.md',
      'docs/%2e%2e/%2e%2e/escape.md',
      'a%5C..%5Cb',
      'a%5Cb',
      '%2Fetc%2Fpasswd',
      '%2F%2Fserver%2Fshare',
      'C:%5Cwindows',
      'c:%2Fwindows',
      'docs/%00x',
      'a%0Ab',
      'x'.repeat(513),
      '%E0%A4%A',
    ];

    test('traversal, absolute paths, backslashes, control characters and bad encodings are 400 and nothing is written', async () => {
      // sent verbatim (fetch would resolve dot segments such as %2e%2e before the server sees them)
      for (const p of [...attacks, '../escape.md', 'docs/../../escape.md', './../escape.md']) {
        const w = await raw('PUT', `${T}/${p}`, '{"content":"x"}');
        assert.equal(w.status, 400, `PUT ${p}: ${w.text}`);
        assert.equal((await raw('GET', `${T}/${p}`)).status, 400, `GET ${p}`);
        assert.equal((await raw('DELETE', `${T}/${p}`)).status, 400, `DELETE ${p}`);
        assert.equal((await raw('GET', `${T}/${p}/revisions`)).status, 400, `GET ${p}/revisions`);
      }
      const w = await a.put(`${T}/..%2fescape.md`, { content: 'x' });
      assert.deepEqual(w.body.errors, [{ field: 'path', message: 'must not contain ".." segments' }]);
      assert.equal(w.headers.get('content-type')?.split(';')[0], 'application/problem+json');
      // a client that resolves dot segments itself ends up on another route, never in the workspace
      for (const p of ['../../escape', '%2e%2e/%2e%2e/escape']) {
        const r = await a.put(`${T}/${p}`, { content: 'x' });
        assert.notEqual(r.status, 200, p);
      }
      assert.deepEqual((await a.get(T)).body, []);
      const id = await projectId('trav');
      assert.equal(await count('project_files', id), 0);
      assert.equal(await count('file_revisions', id), 0);
      assert.equal(Number((await ds.query(`SELECT count(*)::int AS n FROM project_files WHERE path LIKE '%escape%' OR path LIKE '%passwd%'`))[0].n), 0);
    });

    test('a 512-character path is fine; names that merely look encoded are literal', async () => {
      const long = 'y'.repeat(512);
      assert.equal((await a.put(`${T}/${long}`, { content: 'x' })).status, 200);
      const lit = await a.put(`${T}/%252e%252e/x.md`, { content: 'x' });
      assert.equal(lit.status, 200, lit.text);
      assert.equal(lit.body.path, '%2e%2e/x.md', 'decoded once by the router, then taken literally');
      assert.equal((await a.delete(`${T}/%252e%252e/x.md`)).status, 204);
      assert.equal((await a.delete(`${T}/${long}`)).status, 204);
    });
  });

  describe('limits', () => {
    test('a file over 1 MiB is refused over HTTP and by the service (UTF-8 bytes count); nothing is written', async () => {
      await a.post(P, { slug: 'big' });
      const r = await a.put(`${P}/big/files/big.txt`, { content: 'x'.repeat(1024 * 1024 + 1) });
      assert.ok(r.status === 400 || r.status === 413, String(r.status));
      const ws = t.created.app.get(WorkspaceService);
      const id = await projectId('big');
      // 524,289 two-byte characters: under a million characters, over 1 MiB of UTF-8
      await assert.rejects(ws.write(id, 'multi.txt', 'é'.repeat(512 * 1024 + 1)), (e: { status: number; errors: Array<{ field: string }> }) => e.status === 400 && e.errors[0].field === 'content');
      assert.deepEqual((await a.get(`${P}/big/files`)).body, []);
      const exact = await ws.write(id, 'exact.txt', 'x'.repeat(1024 * 1024));
      assert.equal(exact.change, 'added');
      assert.equal((await a.get(`${P}/big/files`)).body[0].size, 1024 * 1024);
    });

    test(`a workspace holds at most ${MAX_FILES} files (409); existing files can still be changed`, async () => {
      await a.post(P, { slug: 'full' });
      const id = await projectId('full');
      await ds.query(
        `INSERT INTO project_files (project_id, path, content, size, revision) SELECT $1, 'f/' || g, 'x', 1, 1 FROM generate_series(1, $2::int) g`,
        [id, MAX_FILES],
      );
      const r = await a.put(`${P}/full/files/one-more.md`, { content: 'x' });
      assert.equal(r.status, 409, r.text);
      assert.match(r.body.detail, /at most 10000 files/);
      assert.equal((await a.get(`${P}/full/files/one-more.md`)).status, 404);
      assert.equal((await a.put(`${P}/full/files/f/1`, { content: 'changed' })).status, 200, 'replacing is not adding');
      assert.equal((await a.delete(`${P}/full/files/f/2`)).status, 204);
      assert.equal((await a.put(`${P}/full/files/one-more.md`, { content: 'x' })).status, 200, 'room again after a delete');
      assert.equal((await a.get(`${P}/full/files`)).body.length, MAX_FILES);
    });
  });

  describe('the workspace as the runtime sees it', () => {
    let ws: WorkspaceService;
    let id: number;
    beforeAll(async () => {
      ws = t.created.app.get(WorkspaceService);
      await a.post(P, { slug: 'runtime' });
      id = await projectId('runtime');
      await ws.write(id, 'docs/prd.md', 'Title\nThe Checkout flow\nnothing here\r\ncheckout again');
      await ws.write(id, 'docs2/other.md', 'CHECKOUT elsewhere');
      await ws.write(id, 'long.txt', 'checkout ' + 'z'.repeat(1000));
    });

    test('forProject implements Workspace: list, read, write (attributed to the run), search', async () => {
      const runId = randomUUID();
      const w = t.created.app.get(WorkspaceService).forProject(id, runId);
      assert.equal(w.readOnly, false);
      assert.deepEqual(await w.list('docs'), [{ path: 'docs/prd.md', size: 52, revision: 1 }]);
      assert.deepEqual((await w.list()).map((e) => e.path), ['docs/prd.md', 'docs2/other.md', 'long.txt']);
      assert.deepEqual(await w.read('docs/prd.md'), { content: 'Title\nThe Checkout flow\nnothing here\r\ncheckout again', revision: 1 });
      assert.equal(await w.read('docs/none.md'), null);
      assert.deepEqual(await w.write('docs/design.md', 'd'), { path: 'docs/design.md', change: 'added', revision: 1 });
      const revs = await ws.revisions(id, 'docs/design.md');
      assert.equal(revs[0].run_id, runId);
      await assert.rejects(w.write('../escape', 'x'), (e: { status: number }) => e.status === 400);
      await assert.rejects(w.read('/etc/passwd'), (e: { status: number }) => e.status === 400);
    });

    test('search: plain, case-insensitive substring with line numbers; dir by whole segments; lines cut to 300', async () => {
      const hits = await ws.search(id, 'checkout');
      assert.deepEqual(hits.slice(0, 3), [
        { path: 'docs/prd.md', line: 2, text: 'The Checkout flow' },
        { path: 'docs/prd.md', line: 4, text: 'checkout again' },
        { path: 'docs2/other.md', line: 1, text: 'CHECKOUT elsewhere' },
      ]);
      assert.equal(hits[3].path, 'long.txt');
      assert.equal(hits[3].text.length, 300);
      assert.deepEqual((await ws.search(id, 'CHECKOUT', 'docs')).map((h) => h.path), ['docs/prd.md', 'docs/prd.md']);
      assert.deepEqual(await ws.search(id, '.*'), [], 'no regular expressions');
      assert.deepEqual(await ws.search(id, 'absent'), []);
      await assert.rejects(ws.search(id, ''), (e: { status: number }) => e.status === 400);
      await assert.rejects(ws.search(id, 'q'.repeat(1025)), (e: { status: number }) => e.status === 400);
      await assert.rejects(ws.search(id, 'x', '../'), (e: { status: number }) => e.status === 400);
    });

    test(`search returns at most ${MAX_SEARCH_HITS} hits`, async () => {
      await ws.write(id, 'many.txt', Array.from({ length: 500 }, (_, i) => `hit ${i}`).join('\n'));
      const hits = await ws.search(id, 'HIT', 'many.txt');
      assert.equal(hits.length, MAX_SEARCH_HITS);
      assert.deepEqual(hits[199], { path: 'many.txt', line: 200, text: 'hit 199' });
    });
  });

  describe("another user's project", () => {
    beforeAll(async () => {
      await a.post(P, { slug: 'secret', pack_id: sys.id });
      await a.put(`${P}/secret/files/notes.md`, { content: 'private' });
      await a.put(`${P}/secret/files/docs/plan.md`, { content: 'private plan' });
    });

    test('is 404 on every route, and nothing leaks or changes', async () => {
      const reads = [
        `${P}/secret`,
        `${P}/secret/files`,
        `${P}/secret/files/notes.md`,
        `${P}/secret/files/notes.md?revision=1`,
        `${P}/secret/files/notes.md/revisions`,
        `${P}/secret/files/docs/plan.md`,
        `${P}/secret/files/docs/plan.md/revisions`,
        '/agent/workflows/secret',
        '/agent/history/secret',
      ];
      for (const path of reads) {
        const r = await b.get(path);
        assert.equal(r.status, 404, path);
        assert.ok(!r.text.includes('private'), path);
      }
      assert.equal((await b.put(`${P}/secret/files/notes.md`, { content: 'x' })).status, 404);
      assert.equal((await b.put(`${P}/secret/files/new.md`, { content: 'x' })).status, 404);
      assert.equal((await b.delete(`${P}/secret/files/notes.md`)).status, 404);
      assert.equal((await b.delete(`${P}/secret`)).status, 404);
      assert.ok(!(await b.get(P)).body.some((p: { slug: string }) => p.slug === 'secret'));
      assert.equal((await a.get(`${P}/secret/files/notes.md`)).body.content, 'private');
      assert.equal((await a.get(`${P}/secret/files/notes.md`)).body.revision, 1);
      assert.deepEqual((await a.get(`${P}/secret/files`)).body.map((f: { path: string }) => f.path), ['docs/plan.md', 'notes.md']);
    });

    test('anonymous callers get 401 on every project route', async () => {
      const anon = new Client(t.url);
      for (const path of [P, `${P}/secret`, `${P}/secret/files`, `${P}/secret/files/notes.md`, `${P}/secret/files/notes.md/revisions`]) {
        assert.equal((await anon.get(path)).status, 401, path);
      }
      assert.equal((await anon.post(P, { slug: 'anon' })).status, 401);
      assert.equal((await anon.put(`${P}/secret/files/notes.md`, { content: 'x' })).status, 401);
      assert.equal((await anon.delete(`${P}/secret/files/notes.md`)).status, 401);
      assert.equal((await anon.delete(`${P}/secret`)).status, 401);
      assert.equal((await anon.request('PATCH', `${P}/secret`, { name: 'x' })).status, 401);
    });
  });
});
