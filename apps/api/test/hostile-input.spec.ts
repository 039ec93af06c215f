/**
 * Hostile input answered with 4xx problems, never 500 (docs/API.md "Limits on input"): deeply nested
 * JSON refused by the body parser, NUL characters in the URL, ids beyond Postgres `integer`, run ids
 * that look like UUIDs but are not.
 */
import assert from 'node:assert/strict';
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client, newUser, type Res } from './support/http';
import { readStream } from './support/sse';

/** `{"message": [[[…1…]]]}` nested `levels` deep. */
const nested = (levels: number, field = 'message') => `{"${field}":${'['.repeat(levels)}1${']'.repeat(levels)}}`;
const deepObject = (levels: number) =>
  `{"username":"x","password":"password-123","a":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;
const FAKE_UUID =
  'g'.repeat(8) + '-' + 'z'.repeat(4) + '-' + '-'.repeat(4) + '-' + 'x'.repeat(4) + '-' + 'y'.repeat(12);
const DASHES = '-'.repeat(36);

function assertProblem(r: Res, status: number, code?: string) {
  assert.equal(r.status, status, r.text);
  assert.match(r.headers.get('content-type') ?? '', /application\/problem\+json/);
  if (code) assert.equal(r.body.code, code, r.text);
}

describe('hostile input', () => {
  let t: TestApp;
  let a: Client;
  let anon: Client;
  let packId: number;

  beforeAll(async () => {
    t = await startApp();
    a = new Client(t.url);
    anon = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    const p = await a.post('/studio/api/projects', { slug: 'deep', name: 'Deep' });
    assert.equal(p.status, 201, p.text);
    packId = (await a.get('/studio/api/workflows')).body.find((w: { slug: string }) => w.slug === 'pdlc').id;
  });
  afterAll(() => t.close());

  const DEEP = 5000;
  const routes: Array<[string, string, () => Client]> = [
    ['POST', '/auth/login', () => anon],
    ['POST', '/agent/demo', () => anon],
    ['POST', '/agent/chat', () => a],
    ['POST', '/studio/api/models', () => a],
    ['PUT', '/studio/api/projects/deep/files/notes.md', () => a],
    ['POST', '/auth/tokens', () => a],
    ['POST', '/studio/api/workflows/{pack}/clone', () => a],
  ];
  for (const [method, path, who] of routes) {
    test(`JSON nested ${DEEP} levels deep to ${method} ${path} is 400 body.too_deep`, async () => {
      const url = path.replace('{pack}', String(packId));
      assertProblem(await who().request(method, url, nested(DEEP)), 400, 'body.too_deep');
      assertProblem(await who().request(method, url, deepObject(DEEP)), 400, 'body.too_deep');
    });
  }

  test('64 levels pass the parser (and meet validation); 65 are refused', async () => {
    assertProblem(await a.post('/auth/tokens', nested(63, 'name')), 400, 'validation');
    assertProblem(await a.post('/auth/tokens', nested(64, 'name')), 400, 'body.too_deep');
    assertProblem(await a.put('/studio/api/projects/deep/files/notes.md', nested(64, 'content')), 400, 'body.too_deep');
  });

  test('a NUL character in a stream query (message=a%00b) is 400', async () => {
    const r = await readStream(`${t.url}/agent/stream?project_slug=deep&message=a%00b&pack_id=${packId}`, {
      headers: { cookie: a.cookie! },
    });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.code, 'validation');
    const demo = await readStream(`${t.url}/agent/stream?message=a%00b`);
    assert.equal(demo.status, 400, JSON.stringify(demo.body));
  });

  test('history before=2147483648 (beyond integer) is 400', async () => {
    assertProblem(await a.get('/agent/history/deep?before=2147483648'), 400, 'validation');
    assert.equal((await a.get('/agent/history/deep?before=2147483647')).status, 200);
  });

  test('DELETE /auth/tokens/2147483648 is 404', async () => {
    assertProblem(await a.delete('/auth/tokens/2147483648'), 404, 'not_found');
    assertProblem(await a.delete('/auth/tokens/99999999999999999999'), 404, 'not_found');
  });

  test('DELETE /studio/api/users/2147483648 is 404', async () => {
    await newUser(t.url, a, 'someone');
    assertProblem(await a.delete('/studio/api/users/2147483648'), 404, 'not_found');
  });

  test('a 36-character non-UUID run id in Last-Event-ID is 400, logged in or not', async () => {
    for (const id of [FAKE_UUID, DASHES]) {
      assert.equal(id.length, 36);
      for (const headers of [{ cookie: a.cookie! }, {}] as Array<Record<string, string>>) {
        const r = await readStream(`${t.url}/agent/stream`, { headers: { ...headers, 'last-event-id': `${id}:3` } });
        assert.equal(r.status, 400, `${id} ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, 'validation');
        const q = await readStream(`${t.url}/agent/stream?last_event_id=${encodeURIComponent(`${id}:3`)}`, { headers });
        assert.equal(q.status, 400, JSON.stringify(q.body));
      }
    }
  });

  test('cancel with a 36-character non-UUID run id is 404, and 401 anonymously', async () => {
    for (const id of [FAKE_UUID, DASHES]) {
      assertProblem(await a.post(`/agent/runs/${id}/cancel`), 404, 'not_found');
      assertProblem(await anon.post(`/agent/runs/${id}/cancel`), 401);
    }
  });
});
