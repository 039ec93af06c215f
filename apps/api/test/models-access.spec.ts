/**
 * /studio/api/models for two users: IDOR, system records, referenced deletes, ordering, malformed ids and
 * login (CRUD, validation, api_base and keys: models.spec.ts).
 */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Model } from '../src/modules/models/model.entity';
import { ModelsService } from '../src/modules/models/models.service';
import { SecretBox } from '../src/platform/crypto/secret-box';
import { type TestApp } from './support/app';
import { Client, type Res } from './support/http';
import { expectStatus, startWithTwoUsers } from './support/record-api';

const API = '/studio/api/models';
const KEY = 'sk-test-MODEL-secret-key-0123456789';
/** The key never appears in a response, in any form the record could carry it. */
function noSecret(r: Res, key = KEY) {
  assert.ok(!r.text.includes(key), `the api_key leaked: ${r.text.slice(0, 300)}`);
  assert.ok(!/"api_key"|api_key_sealed/.test(r.text), `a key field leaked: ${r.text.slice(0, 300)}`);
}

describe('models', () => {
  let t: TestApp;
  let ds: DataSource;
  let a: Client; // the seeded admin
  let b: Client;
  const base = { label: 'GPT', provider: 'vendor_a', model_id: 'gpt-4o-mini' };

  beforeAll(async () => {
    ({ t, ds, a, b } = await startWithTwoUsers('bob-models'));
  });
  afterAll(() => t.close());

  test("another user's model is 404 on every verb and absent from their list", async () => {
    const m = await a.post(API, { ...base, label: 'Alice only', api_key: KEY });
    const id = m.body.id;
    for (const r of [
      await b.get(`${API}/${id}`),
      await b.put(`${API}/${id}`, { label: 'mine now' }),
      await b.put(`${API}/${id}`, {}),
      await b.delete(`${API}/${id}`),
    ]) {
      expectStatus(r, 404);
      noSecret(r);
      assert.ok(!r.text.includes('Alice only'));
    }
    const list = await b.get(API);
    assert.ok(!list.body.some((x: { id: number }) => x.id === id));
    assert.deepEqual((await a.get(`${API}/${id}`)).body, m.body, 'unchanged for its owner');
    const svc = t.created.app.get(ModelsService);
    const bobId = (await b.get('/auth/me')).body.id;
    await assert.rejects(
      svc.resolveForRuntime({ id: bobId, username: 'bob-models', is_admin: false }, id),
      /not found/,
    );
    await assert.rejects(svc.resolveForRuntime(null, id), /not found/);
  });

  test('system models: both users read them; PUT and DELETE are 403 "clone it"', async () => {
    const box = new SecretBox(t.created.config.appSecret, 'model-api-key');
    const sys = await ds.getRepository(Model).save({
      label: 'System model',
      provider: 'vendor_b',
      model_id: 'claude-x',
      owner_id: null,
      is_system: true,
      api_key_sealed: box.seal(KEY),
    } as Model & { api_key_sealed: string });
    for (const c of [a, b]) {
      const g = await c.get(`${API}/${sys.id}`);
      expectStatus(g, 200);
      noSecret(g);
      assert.equal(g.body.is_system, true);
      assert.equal(g.body.owner_id, null);
      assert.equal(g.body.has_api_key, true);
      assert.ok((await c.get(API)).body.some((x: { id: number }) => x.id === sys.id));
      for (const r of [
        await c.put(`${API}/${sys.id}`, { label: 'x' }),
        await c.put(`${API}/${sys.id}`, { api_base: 'http://evil.example.com/' }),
        await c.delete(`${API}/${sys.id}`),
      ]) {
        expectStatus(r, 403);
        assert.match(r.body.detail, /clone/i);
        noSecret(r);
      }
    }
    const row = await ds.getRepository(Model).findOneByOrFail({ id: sys.id });
    assert.equal(row.label, 'System model');
    assert.equal(row.api_base, null);
    const resolved = await t.created.app.get(ModelsService).resolveForRuntime(null, sys.id);
    assert.equal(resolved.api_key, KEY, 'the runtime may use a system model anonymously');
  });

  test('deleting a model used by agents is 409 naming them; it works once they are gone', async () => {
    const m = await a.post(API, { ...base, label: 'Shared' });
    const w = await a.post('/studio/api/agents', { name: 'Writer', model_id: m.body.id });
    const r = await a.post('/studio/api/agents', { name: 'Reviewer', model_id: m.body.id });
    expectStatus(w, 201);
    expectStatus(r, 201);
    const del = await a.delete(`${API}/${m.body.id}`);
    expectStatus(del, 409);
    // named for a person: the model and the agents by name, never by id
    expect(del.body.detail).toBe(
      'The model "Shared" is used by the agents "Writer" and "Reviewer": choose another model for them, or delete them, first.',
    );
    assert.equal((await a.get(`${API}/${m.body.id}`)).status, 200, 'still there');
    expectStatus(await a.delete(`/studio/api/agents/${w.body.id}`), 204);
    const still = await a.delete(`${API}/${m.body.id}`);
    expectStatus(still, 409);
    expect(still.body.detail).toBe(
      'The model "Shared" is used by the agent "Reviewer": choose another model for them, or delete them, first.',
    );
    expectStatus(await a.put(`/studio/api/agents/${r.body.id}`, { model_id: null }), 200);
    expectStatus(await a.delete(`${API}/${m.body.id}`), 204);
  });

  test('lists are own + system, newest first', async () => {
    const one = await b.post(API, { ...base, label: 'first' });
    const two = await b.post(API, { ...base, label: 'second' });
    const three = await b.post(API, { ...base, label: 'third' });
    const list = (await b.get(API)).body as Array<{ id: number; owner_id: number | null; created_at: string }>;
    const own = list.filter((x) => x.owner_id !== null);
    assert.deepEqual(
      own.map((x) => x.id),
      [three.body.id, two.body.id, one.body.id],
    );
    for (let i = 1; i < list.length; i++)
      assert.ok(Date.parse(list[i - 1].created_at) >= Date.parse(list[i].created_at), 'sorted by created_at desc');
  });

  test('malformed ids are 400, unknown ids 404', async () => {
    for (const id of ['abc', '1.5', '12abc']) {
      expectStatus(await a.get(`${API}/${id}`), 400, `GET ${id}`);
      expectStatus(await a.put(`${API}/${id}`, { label: 'x' }), 400, `PUT ${id}`);
      expectStatus(await a.delete(`${API}/${id}`), 400, `DELETE ${id}`);
    }
    for (const id of ['999999', '0', '-1', '99999999999']) {
      expectStatus(await a.get(`${API}/${id}`), 404, `GET ${id}`);
      expectStatus(await a.put(`${API}/${id}`, { label: 'x' }), 404, `PUT ${id}`);
      expectStatus(await a.delete(`${API}/${id}`), 404, `DELETE ${id}`);
    }
  });

  test('login is required', async () => {
    const anon = new Client(t.url);
    expectStatus(await anon.get(API), 401);
    expectStatus(await anon.post(API, base), 401);
  });
});
