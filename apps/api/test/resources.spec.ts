/** Models, skills and agents over HTTP for two users: CRUD, validation, IDOR, system records, secrets. */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Agent } from '../src/modules/agents/agent.entity';
import { Model } from '../src/modules/models/model.entity';
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client, newUser } from './support/http';

const KEY = 'sk-test-super-secret-key-123456';

describe('models, skills and agents', () => {
  let t: TestApp;
  let a: Client;
  let b: Client;
  beforeAll(async () => {
    t = await startApp();
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    b = await newUser(t.url, a, 'bob');
  });
  afterAll(() => t.close());

  const fields = (r: { body: { errors?: Array<{ field: string }> } }) => (r.body.errors ?? []).map((e) => e.field);

  test('model CRUD keeps the api_key write-only and sealed', async () => {
    const c = await a.post('/studio/api/models', {
      label: 'GPT',
      provider: 'vendor_a',
      model_id: 'gpt-x',
      api_key: KEY,
      temperature: 0.2,
    });
    assert.equal(c.status, 201);
    assert.equal(c.body.has_api_key, true);
    assert.equal(c.body.owner_id !== null, true);
    assert.equal(c.body.is_system, false);
    assert.ok(!c.text.includes(KEY) && !c.text.includes('api_key_sealed') && !c.text.includes('"api_key"'));
    const list = await a.get('/studio/api/models');
    assert.ok(!list.text.includes(KEY));
    const one = await a.get(`/studio/api/models/${c.body.id}`);
    assert.equal(one.body.label, 'GPT');
    const u = await a.put(`/studio/api/models/${c.body.id}`, { label: 'GPT 2' });
    assert.equal(u.status, 200);
    assert.equal(u.body.label, 'GPT 2');
    assert.equal(u.body.has_api_key, true, 'a partial update keeps the key');
    const cleared = await a.put(`/studio/api/models/${c.body.id}`, { api_key: null });
    assert.equal(cleared.body.has_api_key, false);
    const ds = t.created.app.get(DataSource);
    await a.put(`/studio/api/models/${c.body.id}`, { api_key: KEY });
    const raw = await ds.query('SELECT api_key_sealed FROM models WHERE id = $1', [c.body.id]);
    assert.ok(raw[0].api_key_sealed && !raw[0].api_key_sealed.includes(KEY), 'stored encrypted');
    assert.equal((await a.delete(`/studio/api/models/${c.body.id}`)).status, 204);
    assert.equal((await a.get(`/studio/api/models/${c.body.id}`)).status, 404);
  });

  test('model validation', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ provider: 'vendor_a', model_id: 'x' }, 'label'],
      [{ label: 'x', provider: 'nope', model_id: 'x' }, 'provider'],
      [{ label: 'x', provider: 'vendor_a', model_id: 'x', temperature: 3 }, 'temperature'],
      [{ label: 'x', provider: 'vendor_a', model_id: 'x', max_tokens: 0 }, 'max_tokens'],
      [{ label: 'x'.repeat(201), provider: 'vendor_a', model_id: 'x' }, 'label'],
      [{ label: 'x', provider: 'custom', model_id: 'x' }, 'api_base'],
      [{ label: 'x', provider: 'custom', model_id: 'x', api_base: 'http://169.254.169.254/latest' }, 'api_base'],
      [{ label: 'x', provider: 'custom', model_id: 'x', api_base: 'file:///etc/passwd' }, 'api_base'],
      [{ label: 'x', provider: 'custom', model_id: 'x', api_base: 'http://[::ffff:169.254.169.254]/' }, 'api_base'],
    ];
    for (const [body, field] of cases) {
      const r = await a.post('/studio/api/models', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.ok(fields(r).includes(field), `${JSON.stringify(body)} → ${JSON.stringify(r.body.errors)}`);
    }
    const ok = await a.post('/studio/api/models', {
      label: 'Ollama',
      provider: 'custom',
      model_id: 'llama3',
      api_base: 'http://127.0.0.1:11434/v1',
    });
    assert.equal(ok.status, 201, 'MODEL_HOSTS=any allows loopback');
  });

  test('server-owned fields are unknown fields and change nothing', async () => {
    const s = await a.post('/studio/api/skills', { name: 'Mine' });
    for (const extra of [
      { id: 999 },
      { owner_id: 1 },
      { is_system: true },
      { created_at: '2020-01-01T00:00:00Z' },
      { updated_at: 'x' },
    ]) {
      const r = await a.put(`/studio/api/skills/${s.body.id}`, { name: 'Hacked', ...extra });
      assert.equal(r.status, 400);
      assert.ok(fields(r).includes(Object.keys(extra)[0]));
      const c = await a.post('/studio/api/agents', { name: 'x', ...extra });
      assert.equal(c.status, 400);
    }
    assert.equal((await a.get(`/studio/api/skills/${s.body.id}`)).body.name, 'Mine');
  });

  test('skills: tool allowlists hold known tools only', async () => {
    const bad = await a.post('/studio/api/skills', { name: 's', tool_allowlist: ['read_file', 'rm_rf'] });
    assert.equal(bad.status, 400);
    assert.ok(fields(bad).some((f) => f.startsWith('tool_allowlist')));
    const ok = await a.post('/studio/api/skills', {
      name: 's',
      prompt_md: '# Do it',
      tool_allowlist: ['read_file', 'read_file', 'write_file'],
    });
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.body.tool_allowlist, ['read_file', 'write_file']);
    const long = await a.post('/studio/api/skills', { name: 's', prompt_md: 'x'.repeat(65537) });
    assert.equal(long.status, 400);
  });

  test('agents reference visible models and skills; referenced deletes are 409 naming the referrer', async () => {
    const m = await a.post('/studio/api/models', { label: 'M', provider: 'vendor_b', model_id: 'claude' });
    const s = await a.post('/studio/api/skills', { name: 'S', tool_allowlist: ['list_files'] });
    const ag = await a.post('/studio/api/agents', {
      name: 'Writer',
      role: 'writes',
      model_id: m.body.id,
      skill_ids: [s.body.id],
      tool_allowlist: ['write_file'],
    });
    assert.equal(ag.status, 201);
    assert.equal(ag.body.max_iterations, 8);
    assert.deepEqual(ag.body.skill_ids, [s.body.id]);
    for (const body of [
      { name: 'x', max_iterations: 51 },
      { name: 'x', max_iterations: 0 },
      { name: 'x', model_id: 999999 },
      { name: 'x', skill_ids: [999999] },
      { name: 'x', tool_allowlist: ['nope'] },
    ]) {
      assert.equal((await a.post('/studio/api/agents', body)).status, 400, JSON.stringify(body));
    }
    const dm = await a.delete(`/studio/api/models/${m.body.id}`);
    assert.equal(dm.status, 409);
    expect(dm.body.detail).toContain('the agent "Writer"');
    const dsk = await a.delete(`/studio/api/skills/${s.body.id}`);
    assert.equal(dsk.status, 409);
    assert.match(dsk.body.detail, /Writer/);
    assert.equal((await a.delete(`/studio/api/agents/${ag.body.id}`)).status, 204);
    assert.equal((await a.delete(`/studio/api/models/${m.body.id}`)).status, 204);
    assert.equal((await a.delete(`/studio/api/skills/${s.body.id}`)).status, 204);
  });

  test("another user's records are 404 on every verb and cannot be referenced", async () => {
    const m = await a.post('/studio/api/models', {
      label: 'A model',
      provider: 'vendor_a',
      model_id: 'x',
      api_key: KEY,
    });
    const s = await a.post('/studio/api/skills', { name: 'A skill' });
    const ag = await a.post('/studio/api/agents', { name: 'A agent' });
    for (const [kind, id] of [
      ['models', m.body.id],
      ['skills', s.body.id],
      ['agents', ag.body.id],
    ] as const) {
      assert.equal((await b.get(`/studio/api/${kind}/${id}`)).status, 404);
      assert.equal((await b.put(`/studio/api/${kind}/${id}`, { name: 'x' })).status, kind === 'models' ? 400 : 404);
      assert.equal((await b.put(`/studio/api/${kind}/${id}`, {})).status, 404);
      assert.equal((await b.delete(`/studio/api/${kind}/${id}`)).status, 404);
      const list = await b.get(`/studio/api/${kind}`);
      assert.ok(!list.body.some((r: { id: number }) => r.id === id));
    }
    assert.equal((await b.post('/studio/api/agents', { name: 'x', model_id: m.body.id })).status, 400);
    assert.equal((await b.post('/studio/api/agents', { name: 'x', skill_ids: [s.body.id] })).status, 400);
    assert.equal((await a.get(`/studio/api/models/${m.body.id}`)).status, 200);
  });

  test('system records are visible to all and read-only ("clone it")', async () => {
    const ds = t.created.app.get(DataSource);
    const sys = await ds
      .getRepository(Model)
      .save({ label: 'Sys', provider: 'vendor_a', model_id: 'm', owner_id: null, is_system: true } as Model);
    for (const c of [a, b]) {
      assert.equal((await c.get(`/studio/api/models/${sys.id}`)).status, 200);
      const put = await c.put(`/studio/api/models/${sys.id}`, { label: 'x' });
      assert.equal(put.status, 403);
      assert.match(put.body.detail, /clone/i);
      assert.equal((await c.delete(`/studio/api/models/${sys.id}`)).status, 403);
    }
    const agents = await b.get('/studio/api/agents');
    assert.ok(
      agents.body.some((x: Agent) => x.is_system),
      'seeded system agents are listed',
    );
  });

  test('lists are newest first; malformed and unknown ids', async () => {
    const one = await b.post('/studio/api/skills', { name: 'first' });
    const two = await b.post('/studio/api/skills', { name: 'second' });
    const own = (await b.get('/studio/api/skills')).body.filter(
      (s: { owner_id: number | null }) => s.owner_id !== null,
    );
    assert.deepEqual(
      own.slice(0, 2).map((s: { id: number }) => s.id),
      [two.body.id, one.body.id],
    );
    assert.equal((await b.get('/studio/api/models/abc')).status, 400);
    assert.equal((await b.get('/studio/api/models/999999')).status, 404);
    assert.equal((await b.get('/studio/api/models/99999999999')).status, 404);
  });
});
