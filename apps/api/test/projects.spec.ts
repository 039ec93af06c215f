/**
 * /studio/api/projects: projects and workspace files with revisions. (Path safety, limits, the
 * runtime's view and ownership: projects-paths.spec.ts.) Runs on the embedded or the external Postgres
 * server (TEST_DATABASE).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
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
    Number(
      (
        await ds.query(
          `SELECT p.id FROM projects p JOIN users u ON u.id = p.owner_id WHERE p.slug = $1 AND u.username = $2`,
          [slug, owner],
        )
      )[0].id,
    );
  const count = async (table: string, id: number) =>
    Number((await ds.query(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`, [id]))[0].n);

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
      assert.deepEqual(Object.keys(r.body).sort(), [
        'awaiting_gate',
        'created_at',
        'domain',
        'id',
        'name',
        'owner_id',
        'pack_id',
        'slug',
        'stage',
        'updated_at',
      ]);
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
      const race = await Promise.all([
        a.post(P, { slug: 'race' }),
        a.post(P, { slug: 'race' }),
        a.post(P, { slug: 'race' }),
      ]);
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
      const bobs = await b.post('/studio/api/workflows', {
        name: 'Bob pack',
        slug: 'bob-pack',
        domain: 'projects-test',
        stages: ['x'],
      });
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
      assert.deepEqual(
        bobs.map((p: { slug: string }) => p.slug),
        ['bobs-own', 'alpha'],
      );
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
      for (const table of ['project_files', 'file_revisions', 'messages'])
        assert.equal(await count(table, id), 0, table);
      assert.equal((await a.delete(`${P}/gone`)).status, 404);
      assert.equal((await a.post(P, { slug: 'gone' })).status, 201, 'the slug is free again');
    });

    test('a project with a running turn is not deleted (409) until the run ends', async () => {
      await a.post(P, { slug: 'busy' });
      const id = await projectId('busy');
      const runId = randomUUID();
      await ds.query(
        `INSERT INTO runs (id, owner_id, project_id, mode, state) SELECT $1, owner_id, id, 'chat', 'running' FROM projects WHERE id = $2`,
        [runId, id],
      );
      const r = await a.delete(`${P}/busy`);
      assert.equal(r.status, 409);
      assert.match(r.body.detail, /cancel/);
      await ds.query(`UPDATE runs SET state = 'done' WHERE id = $1`, [runId]);
      assert.equal((await a.delete(`${P}/busy`)).status, 204);
    });

    test('unknown and malformed slugs are 404', async () => {
      for (const slug of ['nope', 'UPPER', 'x'.repeat(65), '%00'])
        assert.equal((await a.get(`${P}/${slug}`)).status, 404, slug);
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
      for (const bad of ['0', '-1', 'abc', '1.5', '99999999999'])
        assert.equal((await a.get(`${F}/docs/a/b.md?revision=${bad}`)).status, 400, bad);
      assert.equal((await a.get(`${F}/docs/a/b.md?other=1`)).status, 400, 'unknown query fields are refused');
    });

    test('writing identical content is a no-op that keeps the revision', async () => {
      const same = await a.put(`${F}/docs/a/b.md`, { content: '# twö' });
      assert.equal(same.status, 200);
      assert.deepEqual(same.body, { path: 'docs/a/b.md', change: 'unchanged', revision: 2 });
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
        [
          ['docs/a/b.md', 6, 2],
          ['empty.md', 0, 1],
          ['notes/today.md', 1, 1],
        ],
      );
      assert.ok(list.body.every((x: { updated_at: string }) => !Number.isNaN(Date.parse(x.updated_at))));
    });

    test('revisions newest first; delete then revisions show "deleted"; re-creating goes on numbering', async () => {
      const revs = await a.get(`${F}/docs/a/b.md/revisions`);
      assert.equal(revs.status, 200);
      assert.deepEqual(Object.keys(revs.body[0]).sort(), ['change', 'created_at', 'revision', 'run_id', 'size']);
      assert.deepEqual(
        revs.body.map((r: { revision: number; change: string; size: number; run_id: null }) => [
          r.revision,
          r.change,
          r.size,
          r.run_id,
        ]),
        [
          [2, 'modified', 6, null],
          [1, 'added', 5, null],
        ],
      );
      const del = await a.delete(`${F}/docs/a/b.md`);
      assert.equal(del.status, 204);
      assert.equal((await a.get(`${F}/docs/a/b.md`)).status, 404);
      const after = (await a.get(`${F}/docs/a/b.md/revisions`)).body;
      assert.deepEqual(
        after.map((r: { revision: number; change: string }) => [r.revision, r.change]),
        [
          [3, 'deleted'],
          [2, 'modified'],
          [1, 'added'],
        ],
      );
      assert.equal(after[0].size, 0);
      assert.equal((await a.get(`${F}/docs/a/b.md?revision=1`)).body.content, '# one', 'history survives the delete');
      assert.equal((await a.get(`${F}/docs/a/b.md?revision=3`)).status, 404, 'the deletion has no content');
      assert.deepEqual((await a.put(`${F}/docs/a/b.md`, { content: 'again' })).body, {
        path: 'docs/a/b.md',
        change: 'added',
        revision: 4,
      });
      assert.equal((await a.delete(`${F}/never.md`)).status, 404);
      assert.equal((await a.get(`${F}/never.md`)).status, 404);
      assert.equal((await a.get(`${F}/never.md/revisions`)).status, 404);
    });

    test('"revisions": a trailing segment after a path lists revisions; at the root, or with %2F, it is a file', async () => {
      await a.put(`${F}/revisions`, { content: 'root file named revisions' });
      assert.equal((await a.get(`${F}/revisions`)).body.content, 'root file named revisions');
      const w = await a.put(`${F}/docs/revisions`, { content: 'a file named revisions in docs' });
      assert.deepEqual(
        w.body,
        { path: 'docs/revisions', change: 'added', revision: 1 },
        'PUT always takes the whole path',
      );
      assert.equal((await a.get(`${F}/docs%2Frevisions`)).body.content, 'a file named revisions in docs');
      assert.deepEqual(
        (await a.get(`${F}/docs/revisions/revisions`)).body.map((r: { change: string }) => r.change),
        ['added'],
      );
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
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) => a.put(`${F}/race.md`, { content: `writer ${i}` })),
      );
      assert.ok(
        results.every((r) => r.status === 200),
        results.map((r) => r.status).join(),
      );
      assert.deepEqual(
        results.map((r) => r.body.revision).sort((x, y) => x - y),
        Array.from({ length: n }, (_, i) => i + 1),
      );
      assert.deepEqual(results.map((r) => r.body.change).sort(), ['added', ...Array(n - 1).fill('modified')]);
      const file = (await a.get(`${F}/race.md`)).body;
      assert.equal(file.revision, n);
      const last = results.find((r) => r.body.revision === n)!;
      assert.equal(file.content, `writer ${results.indexOf(last)}`, 'the current content is the last revision');
      assert.equal((await a.get(`${F}/race.md/revisions`)).body.length, n);
    });
  });
});
