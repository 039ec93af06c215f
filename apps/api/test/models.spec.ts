/**
 * /studio/api/models: CRUD, validation and limits, the MODEL_HOSTS policy on api_base and write-only
 * sealed API keys (IDOR, system records, deletes, ordering, ids and login: models-access.spec.ts).
 */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { ModelsService } from '../src/modules/models/models.service';
import { ADMIN, type TestApp } from './support/app';
import { type Client, type Res } from './support/http';
import { expect400, expectStatus, startWithTwoUsers } from './support/record-api';

const API = '/studio/api/models';
const KEY = 'sk-test-MODEL-secret-key-0123456789';
/** The key never appears in a response, in any form the record could carry it. */
function noSecret(r: Res, key = KEY) {
  assert.ok(!r.text.includes(key), `the api_key leaked: ${r.text.slice(0, 300)}`);
  assert.ok(!/"api_key"|api_key_sealed/.test(r.text), `a key field leaked: ${r.text.slice(0, 300)}`);
}
const RECORD_KEYS = [
  'api_base',
  'created_at',
  'has_api_key',
  'id',
  'is_system',
  'label',
  'max_tokens',
  'model_id',
  'owner_id',
  'provider',
  'temperature',
  'updated_at',
];

describe('models', () => {
  let t: TestApp;
  let ds: DataSource;
  let a: Client; // the seeded admin
  let b: Client;
  let aId: number;
  const base = { label: 'GPT', provider: 'vendor_a', model_id: 'gpt-4o-mini' };

  beforeAll(async () => {
    ({ t, ds, a, b } = await startWithTwoUsers('bob-models'));
    aId = (await a.get('/auth/me')).body.id;
  });
  afterAll(() => t.close());

  const count = async () => Number((await ds.query('SELECT count(*)::int AS n FROM models'))[0].n);

  test('create, get, list, partial update and delete', async () => {
    const c = await a.post(API, { ...base, api_key: KEY, temperature: 0.2, max_tokens: 1024 });
    expectStatus(c, 201);
    noSecret(c);
    assert.deepEqual(Object.keys(c.body).sort(), RECORD_KEYS);
    assert.equal(c.body.owner_id, aId);
    assert.equal(c.body.is_system, false);
    assert.equal(c.body.has_api_key, true);
    assert.equal(c.body.api_base, null);
    assert.equal(c.body.temperature, 0.2);
    assert.equal(c.body.max_tokens, 1024);
    assert.ok(!Number.isNaN(Date.parse(c.body.created_at)) && c.body.created_at.endsWith('Z'));
    const id = c.body.id;

    const one = await a.get(`${API}/${id}`);
    expectStatus(one, 200);
    noSecret(one);
    assert.deepEqual(one.body, c.body);
    const list = await a.get(API);
    expectStatus(list, 200);
    noSecret(list);
    assert.ok(list.body.some((m: { id: number }) => m.id === id));

    const u = await a.put(`${API}/${id}`, { label: 'GPT 2' });
    expectStatus(u, 200);
    noSecret(u);
    assert.equal(u.body.label, 'GPT 2');
    assert.equal(u.body.model_id, 'gpt-4o-mini', 'fields not sent are kept');
    assert.equal(u.body.temperature, 0.2);
    assert.equal(u.body.has_api_key, true, 'a partial update keeps the key');
    assert.ok(Date.parse(u.body.updated_at) >= Date.parse(c.body.updated_at));

    const cleared = await a.put(`${API}/${id}`, { temperature: null, max_tokens: null });
    assert.equal(cleared.body.temperature, null);
    assert.equal(cleared.body.max_tokens, null);

    expectStatus(await a.delete(`${API}/${id}`), 204);
    expectStatus(await a.get(`${API}/${id}`), 404);
    expectStatus(await a.delete(`${API}/${id}`), 404);
    expectStatus(await a.put(`${API}/${id}`, { label: 'x' }), 404);
  });

  test('api_key is write-only: sealed at rest, never returned, cleared by null or ""', async () => {
    const c = await a.post(API, { ...base, api_key: KEY });
    const id = c.body.id;
    const raw = await ds.query('SELECT api_key_sealed FROM models WHERE id = $1', [id]);
    assert.ok(raw[0].api_key_sealed, 'a sealed key is stored');
    assert.ok(!raw[0].api_key_sealed.includes(KEY), 'stored encrypted, not in clear');
    const svc = t.created.app.get(ModelsService);
    const resolved = await svc.resolveForRuntime({ id: aId, username: ADMIN.username, is_admin: true }, id);
    assert.equal(resolved.api_key, KEY, 'the runtime gets the decrypted key');
    assert.deepEqual(
      { ...resolved, api_key: null },
      {
        provider: 'vendor_a',
        model_id: 'gpt-4o-mini',
        api_base: null,
        api_key: null,
        temperature: null,
        max_tokens: null,
      },
    );

    for (const body of [{ api_key: null }, { api_key: '' }]) {
      await a.put(`${API}/${id}`, { api_key: KEY });
      const r = await a.put(`${API}/${id}`, body);
      expectStatus(r, 200);
      assert.equal(r.body.has_api_key, false, JSON.stringify(body));
      assert.equal((await ds.query('SELECT api_key_sealed FROM models WHERE id = $1', [id]))[0].api_key_sealed, null);
    }
    const set = await a.put(`${API}/${id}`, { api_key: 'sk-another-key-abcdef123456' });
    assert.equal(set.body.has_api_key, true);
    noSecret(set, 'sk-another-key-abcdef123456');
    const none = await a.post(API, { ...base, api_key: '' });
    assert.equal(none.body.has_api_key, false);

    // not echoed by errors either
    const bad = await a.post(API, { ...base, api_key: KEY, temperature: 3 });
    expectStatus(bad, 400);
    noSecret(bad);
    const long = await a.post(API, { ...base, api_key: 'k'.repeat(4097) });
    expect400(long, 'api_key');
    assert.ok(!long.text.includes('k'.repeat(100)));
    expectStatus(await a.post(API, { ...base, api_key: 'k'.repeat(4096) }), 201);
    const idor = await b.put(`${API}/${id}`, { api_key: KEY });
    expectStatus(idor, 404);
    noSecret(idor);
  });

  test('validation: required fields, provider, ranges and string bounds', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ provider: 'vendor_a', model_id: 'x' }, 'label'],
      [{ label: 'x', model_id: 'x' }, 'provider'],
      [{ label: 'x', provider: 'vendor_a' }, 'model_id'],
      [{ ...base, provider: 'openai' }, 'provider'],
      [{ ...base, provider: null }, 'provider'],
      [{ ...base, label: '' }, 'label'],
      [{ ...base, label: '   ' }, 'label'],
      [{ ...base, label: 'x'.repeat(201) }, 'label'],
      [{ ...base, label: 42 }, 'label'],
      [{ ...base, model_id: 'm'.repeat(201) }, 'model_id'],
      [{ ...base, temperature: 3 }, 'temperature'],
      [{ ...base, temperature: -0.1 }, 'temperature'],
      [{ ...base, temperature: '1' }, 'temperature'],
      [{ ...base, max_tokens: 0 }, 'max_tokens'],
      [{ ...base, max_tokens: 200001 }, 'max_tokens'],
      [{ ...base, max_tokens: 1.5 }, 'max_tokens'],
      [{ ...base, api_base: 'http://example.com/' + 'p'.repeat(2049) }, 'api_base'],
      [{ ...base, label: 'nul\u0000byte' }, 'label'],
    ];
    const before = await count();
    for (const [body, field] of cases) expect400(await a.post(API, body), field, JSON.stringify(body).slice(0, 80));
    assert.equal(await count(), before, 'nothing was created');

    const edges = await a.post(API, {
      ...base,
      label: 'x'.repeat(200),
      model_id: 'm'.repeat(200),
      temperature: 2,
      max_tokens: 200000,
    });
    expectStatus(edges, 201);
    const low = await a.post(API, { ...base, temperature: 0, max_tokens: 1 });
    expectStatus(low, 201);
    assert.equal(low.body.temperature, 0);

    // updates: validated the same way; null is not a way to skip a required field
    const id = low.body.id;
    for (const [body, field] of [
      [{ label: null }, 'label'],
      [{ model_id: null }, 'model_id'],
      [{ provider: null }, 'provider'],
      [{ temperature: 3 }, 'temperature'],
      [{ max_tokens: 0 }, 'max_tokens'],
      [{ label: 'x'.repeat(201) }, 'label'],
    ] as Array<[Record<string, unknown>, string]>) {
      expect400(await a.put(`${API}/${id}`, body), field, JSON.stringify(body).slice(0, 80));
    }
    const unchanged = await a.get(`${API}/${id}`);
    assert.equal(unchanged.body.label, 'GPT');
    assert.equal(unchanged.body.temperature, 0);
  });

  test('api_base: required for custom, http(s) only, metadata and link-local refused, on create and update', async () => {
    expect400(await a.post(API, { ...base, provider: 'custom' }), 'api_base', 'custom without api_base');
    expect400(
      await a.post(API, { ...base, provider: 'custom', api_base: '' }),
      'api_base',
      'custom with a blank api_base',
    );
    const refused = [
      'http://169.254.169.254/',
      'http://169.254.169.254/latest/meta-data/',
      'file:///etc/passwd',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://2852039166/',
      'http://0xa9.254.0251.254/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://169.254.10.1:8080/v1',
      'ftp://models.example.com/',
      'gopher://127.0.0.1:11434/',
      'http://user:pass@models.example.com/v1',
      'not a url',
    ];
    const before = await count();
    for (const url of refused) {
      expect400(await a.post(API, { ...base, provider: 'custom', api_base: url }), 'api_base', url);
      expect400(await a.post(API, { ...base, api_base: url }), 'api_base', `vendor_a ${url}`);
    }
    assert.equal(await count(), before, 'nothing was created');

    // MODEL_HOSTS=any (the default): self-hosted endpoints on this machine or the LAN are fine
    for (const url of [
      'http://127.0.0.1:11434/v1',
      'http://localhost:8000/v1',
      'https://models.example.com/v1',
      'http://ollama:11434/v1',
    ]) {
      const ok = await a.post(API, { label: 'Local', provider: 'custom', model_id: 'llama3', api_base: url });
      expectStatus(ok, 201, url);
      assert.equal(ok.body.api_base, url);
    }

    const m = await a.post(API, {
      label: 'Ollama',
      provider: 'custom',
      model_id: 'llama3',
      api_base: 'http://127.0.0.1:11434/v1',
    });
    const id = m.body.id;
    for (const url of ['http://169.254.169.254/', 'file:///etc/passwd', 'http://[::ffff:169.254.169.254]/']) {
      expect400(await a.put(`${API}/${id}`, { api_base: url }), 'api_base', `PUT ${url}`);
    }
    expect400(await a.put(`${API}/${id}`, { api_base: null }), 'api_base', 'custom cannot lose its api_base');
    assert.equal((await a.get(`${API}/${id}`)).body.api_base, 'http://127.0.0.1:11434/v1', 'unchanged');

    // switching a vendor model to custom needs a base URL
    const v = await a.post(API, base);
    expect400(await a.put(`${API}/${v.body.id}`, { provider: 'custom' }), 'api_base');
    const switched = await a.put(`${API}/${v.body.id}`, { provider: 'custom', api_base: 'http://127.0.0.1:8080/v1' });
    expectStatus(switched, 200);
    assert.equal(switched.body.provider, 'custom');
    const back = await a.put(`${API}/${v.body.id}`, { provider: 'vendor_a', api_base: null });
    expectStatus(back, 200);
    assert.equal(back.body.api_base, null);
  });

  test('server-owned and unknown fields are 400 and change nothing', async () => {
    const m = await a.post(API, { ...base, label: 'Mine' });
    const id = m.body.id;
    const extras: Array<Record<string, unknown>> = [
      { id: 999 },
      { owner_id: 1 },
      { is_system: true },
      { created_at: '2020-01-01T00:00:00Z' },
      { updated_at: '2020-01-01T00:00:00Z' },
      { has_api_key: true },
      { api_key_sealed: 'v1.x.y.z' },
      { nonsense: 1 },
    ];
    const before = await count();
    for (const extra of extras) {
      const field = Object.keys(extra)[0];
      expect400(await a.put(`${API}/${id}`, { label: 'Hacked', ...extra }), field, `PUT ${field}`);
      expect400(await a.post(API, { ...base, ...extra }), field, `POST ${field}`);
    }
    assert.equal(await count(), before, 'nothing was created');
    const after = await a.get(`${API}/${id}`);
    assert.deepEqual(after.body, m.body, 'the record is unchanged');
  });
});
