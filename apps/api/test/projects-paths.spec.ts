/**
 * /studio/api/projects: path safety over HTTP, limits, the workspace as the runtime sees it, and
 * ownership (two users: another user's project is 404 on every route). Runs on the embedded or the
 * external Postgres server (TEST_DATABASE).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { DataSource } from 'typeorm';
import { MAX_FILES, MAX_SEARCH_HITS, WorkspaceService } from '../src/modules/projects/workspace.service';
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client, newUser } from './support/http';

const P = '/studio/api/projects';

describe('projects and workspace files', () => {
  let t: TestApp;
  let ds: DataSource;
  let a: Client;
  let b: Client;
  /** a system pack inserted here, so the tests do not depend on seeding */
  let sys: { id: number; stages: string[] };

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

  describe('path safety over HTTP', () => {
    beforeAll(async () => {
      await a.post(P, { slug: 'trav' });
    });
    /** A request whose path goes on the wire exactly as written. */
    const raw = (method: string, path: string, body?: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const u = new URL(t.url);
        const req = request(
          {
            host: u.hostname,
            port: u.port,
            method,
            path,
            headers: {
              cookie: a.cookie!,
              ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
            },
          },
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
      assert.equal(
        Number(
          (
            await ds.query(
              `SELECT count(*)::int AS n FROM project_files WHERE path LIKE '%escape%' OR path LIKE '%passwd%'`,
            )
          )[0].n,
        ),
        0,
      );
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
      await assert.rejects(
        ws.write(id, 'multi.txt', 'é'.repeat(512 * 1024 + 1)),
        (e: { status: number; errors: Array<{ field: string }> }) =>
          e.status === 400 && e.errors[0].field === 'content',
      );
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
      assert.equal(
        (await a.put(`${P}/full/files/one-more.md`, { content: 'x' })).status,
        200,
        'room again after a delete',
      );
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
      assert.deepEqual(
        (await w.list()).map((e) => e.path),
        ['docs/prd.md', 'docs2/other.md', 'long.txt'],
      );
      assert.deepEqual(await w.read('docs/prd.md'), {
        content: 'Title\nThe Checkout flow\nnothing here\r\ncheckout again',
        revision: 1,
      });
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
      assert.deepEqual(
        (await ws.search(id, 'CHECKOUT', 'docs')).map((h) => h.path),
        ['docs/prd.md', 'docs/prd.md'],
      );
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
      assert.deepEqual(
        (await a.get(`${P}/secret/files`)).body.map((f: { path: string }) => f.path),
        ['docs/plan.md', 'notes.md'],
      );
    });

    test('anonymous callers get 401 on every project route', async () => {
      const anon = new Client(t.url);
      for (const path of [
        P,
        `${P}/secret`,
        `${P}/secret/files`,
        `${P}/secret/files/notes.md`,
        `${P}/secret/files/notes.md/revisions`,
      ]) {
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
