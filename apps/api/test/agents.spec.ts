/**
 * /studio/api/agents for two users: CRUD, validation and limits, references (model, skills) visible to
 * the caller, IDOR and system records (deletes, concurrency, resolveForRuntime, ordering and ids:
 * agents-references.spec.ts).
 */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Agent } from '../src/modules/agents/agent.entity';
import type { AuthUser } from '../src/modules/auth/user.entity';
import { Model } from '../src/modules/models/model.entity';
import { Skill } from '../src/modules/skills/skill.entity';
import { type TestApp } from './support/app';
import { Client } from './support/http';
import { expect400, expectStatus, startWithTwoUsers } from './support/record-api';

const API = '/studio/api/agents';
const KEY = 'sk-agent-test-secret-key-5555';
const RECORD_KEYS = [
  'created_at',
  'id',
  'is_system',
  'max_iterations',
  'model_id',
  'name',
  'owner_id',
  'role',
  'skill_ids',
  'system_prompt',
  'tool_allowlist',
  'tools_requiring_approval',
  'updated_at',
];

describe('agents', () => {
  let t: TestApp;
  let ds: DataSource;
  let a: Client; // the seeded admin
  let b: Client;
  let userA: AuthUser;

  beforeAll(async () => {
    ({ t, ds, a, b } = await startWithTwoUsers('bob-agents'));
    userA = (await a.get('/auth/me')).body;
  });
  afterAll(() => t.close());

  const count = async () => Number((await ds.query('SELECT count(*)::int AS n FROM agents'))[0].n);
  const model = async (c: Client, extra: Record<string, unknown> = {}) =>
    (await c.post('/studio/api/models', { label: 'M', provider: 'vendor_a', model_id: 'gpt-x', ...extra })).body as {
      id: number;
    };
  const skill = async (c: Client, extra: Record<string, unknown> = {}) =>
    (await c.post('/studio/api/skills', { name: 'S', ...extra })).body as { id: number };

  test('create, get, list, partial update and delete', async () => {
    const bare = await a.post(API, { name: 'Bare' });
    expectStatus(bare, 201);
    assert.deepEqual(Object.keys(bare.body).sort(), RECORD_KEYS);
    assert.deepEqual(
      {
        role: bare.body.role,
        system_prompt: bare.body.system_prompt,
        model_id: bare.body.model_id,
        skill_ids: bare.body.skill_ids,
        tool_allowlist: bare.body.tool_allowlist,
        max_iterations: bare.body.max_iterations,
      },
      { role: '', system_prompt: '', model_id: null, skill_ids: [], tool_allowlist: [], max_iterations: 8 },
      'defaults: no model = the server default, 8 iterations',
    );

    const m = await model(a);
    const s1 = await skill(a, { name: 'one' });
    const s2 = await skill(a, { name: 'two' });
    const c = await a.post(API, {
      name: 'Writer',
      role: 'writes the PRD',
      system_prompt: 'You write.',
      model_id: m.id,
      skill_ids: [s2.id, s1.id, s2.id],
      tool_allowlist: ['write_file', 'read_file', 'write_file'],
      max_iterations: 12,
    });
    expectStatus(c, 201);
    assert.equal(c.body.owner_id, userA.id);
    assert.equal(c.body.is_system, false);
    assert.equal(c.body.model_id, m.id);
    assert.deepEqual(c.body.skill_ids, [s2.id, s1.id], 'duplicates removed, order kept');
    assert.deepEqual(c.body.tool_allowlist, ['write_file', 'read_file']);
    assert.equal(c.body.max_iterations, 12);
    const id = c.body.id;
    assert.deepEqual((await a.get(`${API}/${id}`)).body, c.body);
    assert.ok((await a.get(API)).body.some((x: { id: number }) => x.id === id));

    const u = await a.put(`${API}/${id}`, { role: 'edits' });
    expectStatus(u, 200);
    assert.equal(u.body.role, 'edits');
    assert.equal(u.body.name, 'Writer', 'fields not sent are kept');
    assert.equal(u.body.model_id, m.id);
    assert.deepEqual(u.body.skill_ids, [s2.id, s1.id]);
    const u2 = await a.put(`${API}/${id}`, { model_id: null, skill_ids: [s1.id, s1.id], max_iterations: 50 });
    expectStatus(u2, 200);
    assert.equal(u2.body.model_id, null, 'null = back to the server default model');
    assert.deepEqual(u2.body.skill_ids, [s1.id]);
    assert.equal(u2.body.max_iterations, 50);

    expectStatus(await a.delete(`${API}/${id}`), 204);
    expectStatus(await a.get(`${API}/${id}`), 404);
    expectStatus(await a.delete(`${API}/${id}`), 404);
  });

  test('validation: required name, bounds, max_iterations 1–50, known tools, reference shapes', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: ' \t ' }, 'name'],
      [{ name: null }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: 'ok', role: 'r'.repeat(201) }, 'role'],
      [{ name: 'ok', system_prompt: 'p'.repeat(65537) }, 'system_prompt'],
      [{ name: 'ok', system_prompt: null }, 'system_prompt'],
      [{ name: 'ok', max_iterations: 51 }, 'max_iterations'],
      [{ name: 'ok', max_iterations: 0 }, 'max_iterations'],
      [{ name: 'ok', max_iterations: 2.5 }, 'max_iterations'],
      [{ name: 'ok', max_iterations: '8' }, 'max_iterations'],
      [{ name: 'ok', max_iterations: null }, 'max_iterations'],
      [{ name: 'ok', tool_allowlist: ['read_file', 'format_disk'] }, 'tool_allowlist[1]'],
      [{ name: 'ok', tool_allowlist: new Array(17).fill('read_file') }, 'tool_allowlist'],
      [{ name: 'ok', model_id: 'gpt-4' }, 'model_id'],
      [{ name: 'ok', model_id: 0 }, 'model_id'],
      [{ name: 'ok', model_id: 99999999999 }, 'model_id'],
      [{ name: 'ok', model_id: 999999 }, 'model_id'],
      [{ name: 'ok', skill_ids: [999999] }, 'skill_ids'],
      [{ name: 'ok', skill_ids: ['1'] }, 'skill_ids'],
      [{ name: 'ok', skill_ids: [99999999999] }, 'skill_ids'],
      [{ name: 'ok', skill_ids: null }, 'skill_ids'],
      [{ name: 'ok', skill_ids: new Array(65).fill(1) }, 'skill_ids'],
    ];
    const before = await count();
    for (const [body, field] of cases) expect400(await a.post(API, body), field, JSON.stringify(body).slice(0, 80));
    assert.equal(await count(), before, 'nothing was created');

    const s = await skill(a);
    const max = await a.post(API, {
      name: 'n'.repeat(200),
      role: 'r'.repeat(200),
      system_prompt: 'p'.repeat(65536),
      max_iterations: 1,
      skill_ids: new Array(64).fill(s.id),
    });
    expectStatus(max, 201, 'the limits themselves are accepted');
    assert.deepEqual(max.body.skill_ids, [s.id]);

    const id = max.body.id;
    for (const [body, field] of [
      [{ name: null }, 'name'],
      [{ max_iterations: 51 }, 'max_iterations'],
      [{ max_iterations: null }, 'max_iterations'],
      [{ tool_allowlist: ['nope'] }, 'tool_allowlist[0]'],
      [{ model_id: 999999 }, 'model_id'],
      [{ skill_ids: [s.id, 999999] }, 'skill_ids'],
    ] as Array<[Record<string, unknown>, string]>) {
      expect400(await a.put(`${API}/${id}`, body), field, JSON.stringify(body).slice(0, 80));
    }
    assert.deepEqual((await a.get(`${API}/${id}`)).body, max.body, 'unchanged');
  });

  test('server-owned and unknown fields are 400 and change nothing', async () => {
    const ag = await a.post(API, { name: 'Mine' });
    const before = await count();
    for (const extra of [
      { id: 999 },
      { owner_id: 1 },
      { is_system: true },
      { created_at: '2020-01-01T00:00:00Z' },
      { updated_at: '2020-01-01T00:00:00Z' },
      { model: {} },
    ] as Array<Record<string, unknown>>) {
      const field = Object.keys(extra)[0];
      expect400(await a.put(`${API}/${ag.body.id}`, { name: 'Hacked', ...extra }), field, `PUT ${field}`);
      expect400(await a.post(API, { name: 'New', ...extra }), field, `POST ${field}`);
    }
    assert.equal(await count(), before, 'nothing was created');
    assert.deepEqual((await a.get(`${API}/${ag.body.id}`)).body, ag.body, 'the record is unchanged');
  });

  test("another user's records: 404 on every verb, and not usable as references", async () => {
    const m = await model(a, { api_key: KEY });
    const s = await skill(a, { prompt_md: 'alice-only' });
    const ag = await a.post(API, { name: 'Alice agent', model_id: m.id, skill_ids: [s.id] });
    const id = ag.body.id;
    for (const r of [
      await b.get(`${API}/${id}`),
      await b.put(`${API}/${id}`, { name: 'mine now' }),
      await b.put(`${API}/${id}`, {}),
      await b.delete(`${API}/${id}`),
    ]) {
      expectStatus(r, 404);
      assert.ok(!r.text.includes('Alice agent'));
    }
    assert.ok(!(await b.get(API)).body.some((x: { id: number }) => x.id === id));
    assert.deepEqual((await a.get(`${API}/${id}`)).body, ag.body, 'unchanged for its owner');

    const before = await count();
    expect400(await b.post(API, { name: 'x', model_id: m.id }), 'model_id', "Alice's model");
    expect400(await b.post(API, { name: 'x', skill_ids: [s.id] }), 'skill_ids', "Alice's skill");
    assert.equal(await count(), before);
    const own = await b.post(API, { name: 'Bob agent' });
    expect400(await b.put(`${API}/${own.body.id}`, { model_id: m.id }), 'model_id', "PUT Alice's model");
    expect400(await b.put(`${API}/${own.body.id}`, { skill_ids: [s.id] }), 'skill_ids', "PUT Alice's skill");
    const bobView = await b.get(`${API}/${own.body.id}`);
    assert.equal(bobView.body.model_id, null);
    assert.deepEqual(bobView.body.skill_ids, []);
    for (const r of [
      await b.post(API, { name: 'x', model_id: m.id }),
      await b.post(API, { name: 'x', skill_ids: [s.id] }),
    ]) {
      assert.ok(!r.text.includes(KEY) && !r.text.includes('alice-only'));
    }
    // a PUT to Alice's agent with a valid body is 404 before anything is checked
    expectStatus(await b.put(`${API}/${id}`, { skill_ids: [s.id] }), 404);
  });

  test('system agents: both users read them; PUT and DELETE are 403 "clone it"; system models and skills are usable', async () => {
    const sysModel = await ds
      .getRepository(Model)
      .save({ label: 'Sys model', provider: 'vendor_a', model_id: 'm', owner_id: null, is_system: true } as Model);
    const sysSkill = await ds
      .getRepository(Skill)
      .save({ name: 'Sys skill', owner_id: null, is_system: true } as Skill);
    const sys = await ds.getRepository(Agent).save({
      name: 'Sys agent',
      owner_id: null,
      is_system: true,
      model_id: sysModel.id,
      skill_ids: [sysSkill.id],
    } as Agent);
    for (const c of [a, b]) {
      const g = await c.get(`${API}/${sys.id}`);
      expectStatus(g, 200);
      assert.equal(g.body.is_system, true);
      assert.equal(g.body.owner_id, null);
      assert.ok((await c.get(API)).body.some((x: { id: number }) => x.id === sys.id));
      for (const r of [
        await c.put(`${API}/${sys.id}`, { name: 'x' }),
        await c.put(`${API}/${sys.id}`, {}),
        await c.delete(`${API}/${sys.id}`),
      ]) {
        expectStatus(r, 403);
        assert.match(r.body.detail, /clone/i);
      }
      const mine = await c.post(API, { name: 'Uses system records', model_id: sysModel.id, skill_ids: [sysSkill.id] });
      expectStatus(mine, 201);
    }
    assert.equal((await ds.getRepository(Agent).findOneByOrFail({ id: sys.id })).name, 'Sys agent');
    const seeded = (await b.get(API)).body.filter((x: { is_system: boolean }) => x.is_system);
    assert.ok(seeded.length > 1, 'the seeded PDLC agents are listed');
  });
});
