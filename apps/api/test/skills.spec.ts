/**
 * /studio/api/skills for two users: CRUD, validation and limits, tool allowlists, IDOR, system records,
 * referenced deletes, ordering and malformed ids.
 */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Skill } from '../src/modules/skills/skill.entity';
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client, newUser, type Res } from './support/http';

const API = '/studio/api/skills';
const RECORD_KEYS = [
  'artifact_hint',
  'created_at',
  'description',
  'id',
  'is_system',
  'name',
  'owner_id',
  'prompt_md',
  'tool_allowlist',
  'tools_requiring_approval',
  'updated_at',
];

const fields = (r: Res) => (r.body?.errors ?? []).map((e: { field: string }) => e.field);
function expectStatus(r: Res, status: number, what = '') {
  assert.equal(r.status, status, `${what} expected ${status}, got ${r.status}: ${r.text.slice(0, 400)}`);
  if (status >= 400) assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
}
function expect400(r: Res, field: string, what = '') {
  expectStatus(r, 400, what);
  assert.ok(fields(r).includes(field), `${what}: expected an error on ${field}, got ${JSON.stringify(r.body.errors)}`);
}

describe('skills', () => {
  let t: TestApp;
  let ds: DataSource;
  let a: Client; // the seeded admin
  let b: Client;
  let aId: number;

  beforeAll(async () => {
    t = await startApp();
    ds = t.created.app.get(DataSource);
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    aId = (await a.get('/auth/me')).body.id;
    b = await newUser(t.url, a, 'bob-skills');
  });
  afterAll(() => t.close());

  const count = async () => Number((await ds.query('SELECT count(*)::int AS n FROM skills'))[0].n);

  test('create, get, list, partial update and delete', async () => {
    const bare = await a.post(API, { name: 'Bare' });
    expectStatus(bare, 201);
    assert.deepEqual(Object.keys(bare.body).sort(), RECORD_KEYS);
    assert.deepEqual(
      {
        description: bare.body.description,
        prompt_md: bare.body.prompt_md,
        tool_allowlist: bare.body.tool_allowlist,
        artifact_hint: bare.body.artifact_hint,
      },
      { description: '', prompt_md: '', tool_allowlist: [], artifact_hint: '' },
      'defaults',
    );

    const c = await a.post(API, {
      name: 'Write a PRD',
      description: 'Product requirements',
      prompt_md: '# PRD\nWrite `docs/prd.md`.',
      tool_allowlist: ['read_file', 'write_file'],
      artifact_hint: 'docs/prd.md',
    });
    expectStatus(c, 201);
    assert.equal(c.body.owner_id, aId);
    assert.equal(c.body.is_system, false);
    assert.equal(c.body.prompt_md, '# PRD\nWrite `docs/prd.md`.');
    assert.deepEqual(c.body.tool_allowlist, ['read_file', 'write_file']);
    const id = c.body.id;

    assert.deepEqual((await a.get(`${API}/${id}`)).body, c.body);
    assert.ok((await a.get(API)).body.some((s: { id: number }) => s.id === id));

    const u = await a.put(`${API}/${id}`, { description: 'Changed' });
    expectStatus(u, 200);
    assert.equal(u.body.description, 'Changed');
    assert.equal(u.body.name, 'Write a PRD', 'fields not sent are kept');
    assert.deepEqual(u.body.tool_allowlist, ['read_file', 'write_file']);
    const emptied = await a.put(`${API}/${id}`, { tool_allowlist: [], prompt_md: '' });
    assert.deepEqual(emptied.body.tool_allowlist, []);
    assert.equal(emptied.body.prompt_md, '');
    const same = await a.put(`${API}/${id}`, {});
    expectStatus(same, 200);
    assert.equal(same.body.description, 'Changed');

    expectStatus(await a.delete(`${API}/${id}`), 204);
    expectStatus(await a.get(`${API}/${id}`), 404);
    expectStatus(await a.delete(`${API}/${id}`), 404);
  });

  test('validation: required name, string bounds, null is not absent', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: '  ' }, 'name'],
      [{ name: null }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: 'ok', description: 'd'.repeat(65537) }, 'description'],
      [{ name: 'ok', prompt_md: 'p'.repeat(65537) }, 'prompt_md'],
      [{ name: 'ok', prompt_md: null }, 'prompt_md'],
      [{ name: 'ok', description: 7 }, 'description'],
      [{ name: 'ok', artifact_hint: 'a'.repeat(513) }, 'artifact_hint'],
      [{ name: 'ok', prompt_md: 'a\u0000b' }, 'prompt_md'],
    ];
    const before = await count();
    for (const [body, field] of cases) expect400(await a.post(API, body), field, JSON.stringify(body).slice(0, 80));
    assert.equal(await count(), before, 'nothing was created');

    const max = await a.post(API, {
      name: 'n'.repeat(200),
      description: 'd'.repeat(65536),
      prompt_md: 'p'.repeat(65536),
      artifact_hint: 'a'.repeat(512),
    });
    expectStatus(max, 201, 'the limits themselves are accepted');
    assert.equal(max.body.prompt_md.length, 65536);

    const s = await a.post(API, { name: 'Keep', prompt_md: 'keep me' });
    for (const [body, field] of [
      [{ name: null }, 'name'],
      [{ name: '' }, 'name'],
      [{ prompt_md: null }, 'prompt_md'],
      [{ description: null }, 'description'],
      [{ artifact_hint: null }, 'artifact_hint'],
      [{ tool_allowlist: null }, 'tool_allowlist'],
      [{ prompt_md: 'p'.repeat(65537) }, 'prompt_md'],
    ] as Array<[Record<string, unknown>, string]>) {
      expect400(await a.put(`${API}/${s.body.id}`, body), field, JSON.stringify(body).slice(0, 80));
    }
    assert.deepEqual((await a.get(`${API}/${s.body.id}`)).body, s.body, 'unchanged');
  });

  test('tool_allowlist: known tools only (the error names the item), duplicates removed in order, at most 16', async () => {
    const bad = await a.post(API, { name: 's', tool_allowlist: ['read_file', 'rm_rf', 'write_file', 'shell'] });
    expectStatus(bad, 400);
    assert.deepEqual(fields(bad), ['tool_allowlist[1]', 'tool_allowlist[3]']);
    assert.match(bad.body.errors[0].message, /rm_rf/);
    expect400(await a.post(API, { name: 's', tool_allowlist: 'read_file' }), 'tool_allowlist', 'not an array');
    expect400(await a.post(API, { name: 's', tool_allowlist: [1] }), 'tool_allowlist', 'not strings');
    expect400(
      await a.post(API, { name: 's', tool_allowlist: new Array(17).fill('read_file') }),
      'tool_allowlist',
      '17 items',
    );

    const ok = await a.post(API, {
      name: 's',
      tool_allowlist: ['write_file', 'read_file', 'write_file', 'list_files', 'read_file'],
    });
    expectStatus(ok, 201);
    assert.deepEqual(ok.body.tool_allowlist, ['write_file', 'read_file', 'list_files']);
    const all = await a.post(API, {
      name: 'all',
      tool_allowlist: ['list_files', 'read_file', 'write_file', 'edit_file', 'search_files'],
    });
    expectStatus(all, 201);
    const sixteen = await a.post(API, { name: 's', tool_allowlist: new Array(16).fill('edit_file') });
    expectStatus(sixteen, 201);
    assert.deepEqual(sixteen.body.tool_allowlist, ['edit_file']);

    const upd = await a.put(`${API}/${ok.body.id}`, { tool_allowlist: ['search_files', 'nope'] });
    expect400(upd, 'tool_allowlist[1]');
    assert.deepEqual(
      (await a.get(`${API}/${ok.body.id}`)).body.tool_allowlist,
      ['write_file', 'read_file', 'list_files'],
      'unchanged',
    );
    const upd2 = await a.put(`${API}/${ok.body.id}`, { tool_allowlist: ['search_files', 'search_files', 'edit_file'] });
    assert.deepEqual(upd2.body.tool_allowlist, ['search_files', 'edit_file']);
  });

  test('server-owned and unknown fields are 400 and change nothing', async () => {
    const s = await a.post(API, { name: 'Mine' });
    const before = await count();
    for (const extra of [
      { id: 999 },
      { owner_id: 1 },
      { is_system: true },
      { created_at: '2020-01-01T00:00:00Z' },
      { updated_at: '2020-01-01T00:00:00Z' },
      { tools: [] },
    ] as Array<Record<string, unknown>>) {
      const field = Object.keys(extra)[0];
      expect400(await a.put(`${API}/${s.body.id}`, { name: 'Hacked', ...extra }), field, `PUT ${field}`);
      expect400(await a.post(API, { name: 'New', ...extra }), field, `POST ${field}`);
    }
    assert.equal(await count(), before, 'nothing was created');
    assert.deepEqual((await a.get(`${API}/${s.body.id}`)).body, s.body, 'the record is unchanged');
  });

  test("another user's skill is 404 on every verb and absent from their list", async () => {
    const s = await a.post(API, { name: 'Alice secret skill', prompt_md: 'alice-prompt' });
    const id = s.body.id;
    for (const r of [
      await b.get(`${API}/${id}`),
      await b.put(`${API}/${id}`, { name: 'mine now' }),
      await b.put(`${API}/${id}`, {}),
      await b.delete(`${API}/${id}`),
    ]) {
      expectStatus(r, 404);
      assert.ok(!r.text.includes('alice-prompt') && !r.text.includes('Alice secret skill'));
    }
    assert.ok(!(await b.get(API)).body.some((x: { id: number }) => x.id === id));
    assert.deepEqual((await a.get(`${API}/${id}`)).body, s.body, 'unchanged for its owner');
  });

  test('system skills: both users read them; PUT and DELETE are 403 "clone it"', async () => {
    const sys = await ds.getRepository(Skill).save({
      name: 'System skill',
      prompt_md: 'sys',
      owner_id: null,
      is_system: true,
      tool_allowlist: ['read_file'],
    } as Skill);
    for (const c of [a, b]) {
      const g = await c.get(`${API}/${sys.id}`);
      expectStatus(g, 200);
      assert.equal(g.body.is_system, true);
      assert.equal(g.body.owner_id, null);
      assert.ok((await c.get(API)).body.some((x: { id: number }) => x.id === sys.id));
      for (const r of [await c.put(`${API}/${sys.id}`, { name: 'x' }), await c.delete(`${API}/${sys.id}`)]) {
        expectStatus(r, 403);
        assert.match(r.body.detail, /clone/i);
      }
    }
    assert.equal((await ds.getRepository(Skill).findOneByOrFail({ id: sys.id })).name, 'System skill');
    // the seeded PDLC pack brings system skills too
    assert.ok((await b.get(API)).body.filter((x: { is_system: boolean }) => x.is_system).length > 1);
  });

  test('deleting a skill used by agents is 409 naming them; it works once they are gone', async () => {
    const s = await a.post(API, { name: 'Shared' });
    const other = await a.post(API, { name: 'Other' });
    const w = await a.post('/studio/api/agents', { name: 'Writer', skill_ids: [other.body.id, s.body.id] });
    const r = await a.post('/studio/api/agents', { name: 'Reviewer', skill_ids: [s.body.id] });
    expectStatus(w, 201);
    const del = await a.delete(`${API}/${s.body.id}`);
    expectStatus(del, 409);
    expect(del.body.detail).toBe(
      'The skill "Shared" is used by the agents "Writer" and "Reviewer": remove it from them, or delete them, first.',
    );
    expectStatus(await a.get(`${API}/${s.body.id}`), 200);
    expectStatus(await a.put(`/studio/api/agents/${w.body.id}`, { skill_ids: [other.body.id] }), 200);
    expectStatus(await a.delete(`/studio/api/agents/${r.body.id}`), 204);
    expectStatus(await a.delete(`${API}/${s.body.id}`), 204);
    const stillUsed = await a.delete(`${API}/${other.body.id}`);
    expectStatus(stillUsed, 409);
    expect(stillUsed.body.detail).toContain('"Writer"');
  });

  test('a 409 names at most 20 referrers and counts the rest', async () => {
    const s = await b.post(API, { name: 'Popular' });
    const ids: number[] = [];
    for (let i = 1; i <= 22; i++)
      ids.push((await b.post('/studio/api/agents', { name: `Agent ${i}`, skill_ids: [s.body.id] })).body.id);
    const del = await b.delete(`${API}/${s.body.id}`);
    expectStatus(del, 409);
    const named = ids
      .slice(0, 20)
      .map((_id, i) => `"Agent ${i + 1}"`)
      .join(', ');
    expect(del.body.detail).toBe(
      `The skill "Popular" is used by the agents ${named} and 2 more: remove it from them, or delete them, first.`,
    );
  });

  test('lists are own + system, newest first', async () => {
    const one = await b.post(API, { name: 'first' });
    const two = await b.post(API, { name: 'second' });
    const three = await b.post(API, { name: 'third' });
    const list = (await b.get(API)).body as Array<{ id: number; owner_id: number | null; created_at: string }>;
    assert.deepEqual(
      list
        .filter((x) => x.owner_id !== null)
        .slice(0, 3)
        .map((x) => x.id),
      [three.body.id, two.body.id, one.body.id],
    );
    for (let i = 1; i < list.length; i++)
      assert.ok(Date.parse(list[i - 1].created_at) >= Date.parse(list[i].created_at), 'sorted by created_at desc');
  });

  test('malformed ids are 400, unknown ids 404', async () => {
    for (const id of ['abc', '1.5', '12abc']) {
      expectStatus(await a.get(`${API}/${id}`), 400, `GET ${id}`);
      expectStatus(await a.put(`${API}/${id}`, { name: 'x' }), 400, `PUT ${id}`);
      expectStatus(await a.delete(`${API}/${id}`), 400, `DELETE ${id}`);
    }
    for (const id of ['999999', '0', '99999999999']) {
      expectStatus(await a.get(`${API}/${id}`), 404, `GET ${id}`);
      expectStatus(await a.put(`${API}/${id}`, { name: 'x' }), 404, `PUT ${id}`);
      expectStatus(await a.delete(`${API}/${id}`), 404, `DELETE ${id}`);
    }
  });
});
