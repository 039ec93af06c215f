/** /studio/api/workflows: server-owned fields, ownership between users, clone, the response contract and the runtime helpers. */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Agent } from '../src/modules/agents/agent.entity';
import { WorkflowsService } from '../src/modules/workflows/workflows.service';
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client, newUser, type Res } from './support/http';

const API = '/studio/api/workflows';
const RECORD_KEYS = [
  'created_at',
  'description',
  'domain',
  'id',
  'is_system',
  'name',
  'owner_id',
  'slug',
  'stages',
  'updated_at',
  'version',
];
const PDLC = ['discover', 'design', 'develop', 'test', 'deploy', 'iterate'];
type Node = {
  node_key: string;
  type: 'agent' | 'gate' | 'branch';
  agent_id: number | null;
  stage_label: string | null;
  config: Record<string, unknown>;
  position_x: number;
  position_y: number;
};
type Edge = { from_node: string; to_node: string; condition: string | null };

const isProblem = (r: Res) => assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
const fields = (r: Res) => (r.body.errors ?? []).map((e: { field: string }) => e.field);

function expectStatus(r: Res, status: number, what = '') {
  assert.equal(r.status, status, `${what} expected ${status}, got ${r.status}: ${r.text.slice(0, 500)}`);
  if (status >= 400) isProblem(r);
}

const agentNode = (key: string, agentId: number, stage: string, extra: Partial<Node> = {}): Node => ({
  node_key: key,
  type: 'agent',
  agent_id: agentId,
  stage_label: stage,
  config: { artifact: `docs/${key}.md` },
  position_x: 0,
  position_y: 0,
  ...extra,
});
const edge = (from: string, to: string, condition: string | null = null): Edge => ({
  from_node: from,
  to_node: to,
  condition,
});

describe('workflows', () => {
  let t: TestApp;
  let ds: DataSource;
  let alice: Client;
  let bob: Client;
  let aliceId: number;
  let bobId: number;
  let aliceAgent: number;
  let bobAgent: number;
  let pdlcId: number;

  async function makeAgent(ownerId: number | null, name: string): Promise<number> {
    const repo = ds.getRepository(Agent);
    const row = await repo.save(repo.create({ owner_id: ownerId, is_system: ownerId === null, name, role: 'tester' }));
    return row.id;
  }

  async function createPack(c: Client, body: Record<string, unknown>) {
    const r = await c.post(API, body);
    expectStatus(r, 201, 'create');
    return r.body;
  }

  async function rowCounts() {
    const out: Record<string, number> = {};
    for (const table of ['workflows', 'workflow_nodes', 'workflow_edges', 'agents', 'skills', 'models']) {
      out[table] = Number((await ds.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n);
    }
    return out;
  }

  beforeAll(async () => {
    t = await startApp();
    ds = t.created.app.get(DataSource);
    const admin = new Client(t.url);
    await admin.login(ADMIN.username, ADMIN.password);
    alice = await newUser(t.url, admin, 'alice');
    bob = await newUser(t.url, admin, 'bob');
    aliceId = (await alice.get('/auth/me')).body.id;
    bobId = (await bob.get('/auth/me')).body.id;
    aliceAgent = await makeAgent(aliceId, 'Alice agent');
    bobAgent = await makeAgent(bobId, 'Bob agent');
    const list = await alice.get(API);
    const pdlc = list.body.find((w: { slug: string; is_system: boolean }) => w.slug === 'pdlc' && w.is_system);
    assert.ok(pdlc, 'the system PDLC pack is seeded');
    pdlcId = pdlc.id;
  });
  afterAll(() => t.close());

  describe('server-owned fields', () => {
    test('id, owner_id, is_system, version, created_at, updated_at in a create or update body → 400', async () => {
      const w = await createPack(alice, { name: 'Mass assignment' });
      const before = await rowCounts();
      const forbidden: Record<string, unknown> = {
        id: 123456,
        owner_id: bobId,
        is_system: true,
        version: 99,
        created_at: '2020-01-01T00:00:00Z',
        updated_at: '2020-01-01T00:00:00Z',
      };
      for (const [key, value] of Object.entries(forbidden)) {
        const c = await alice.post(API, { name: 'Sneaky', [key]: value });
        expectStatus(c, 400, `POST ${key}`);
        assert.deepEqual(fields(c), [key]);
        const u = await alice.put(`${API}/${w.id}`, { name: 'Sneaky', [key]: value });
        expectStatus(u, 400, `PUT ${key}`);
        assert.deepEqual(fields(u), [key]);
      }
      assert.deepEqual(await rowCounts(), before);
      const after = (await alice.get(`${API}/${w.id}`)).body;
      assert.equal(after.name, 'Mass assignment');
      assert.equal(after.owner_id, aliceId);
      assert.equal(after.is_system, false);
      assert.equal(after.version, 1);
    });
  });

  describe('ownership', () => {
    test("another user's workflow is 404 on every verb, and stays untouched", async () => {
      const theirs = await createPack(bob, { name: 'Bob private', description: 'secret plans' });
      const graph = { nodes: [agentNode('a', bobAgent, 'discover')], edges: [edge('start', 'a')] };
      expectStatus(await bob.put(`${API}/${theirs.id}/graph`, graph), 200);
      const before = (await bob.get(`${API}/${theirs.id}`)).body;
      const id = theirs.id;
      const attempts: Array<[string, Promise<Res>]> = [
        ['GET', alice.get(`${API}/${id}`)],
        ['PUT', alice.put(`${API}/${id}`, { name: 'mine now' })],
        ['DELETE', alice.delete(`${API}/${id}`)],
        ['GET graph', alice.get(`${API}/${id}/graph`)],
        ['PUT graph', alice.put(`${API}/${id}/graph`, { nodes: [], edges: [] })],
        ['clone', alice.post(`${API}/${id}/clone`, {})],
        ['export', alice.post(`${API}/${id}/export`, {})],
      ];
      for (const [what, p] of attempts) {
        const r = await p;
        expectStatus(r, 404, what);
        assert.doesNotMatch(r.text, /secret plans|Bob private/);
      }
      assert.deepEqual((await bob.get(`${API}/${theirs.id}`)).body, before);
    });

    test('system packs are read-only: PUT, DELETE and graph PUT → 403 "clone it"', async () => {
      const before = (await alice.get(`${API}/${pdlcId}`)).body;
      for (const r of [
        await alice.put(`${API}/${pdlcId}`, { name: 'Hijacked' }),
        await alice.delete(`${API}/${pdlcId}`),
        await alice.put(`${API}/${pdlcId}/graph`, { nodes: [], edges: [] }),
      ]) {
        expectStatus(r, 403);
        assert.match(r.body.detail, /clone it/i);
      }
      assert.deepEqual((await alice.get(`${API}/${pdlcId}`)).body, before);
    });

    test("an agent node may not name another user's agent", async () => {
      const w = await createPack(alice, { name: 'Borrowing' });
      const r = await alice.put(`${API}/${w.id}/graph`, {
        nodes: [agentNode('a', bobAgent, 'discover')],
        edges: [edge('start', 'a')],
      });
      expectStatus(r, 400);
      assert.deepEqual(fields(r), ['nodes[0].agent_id']);
      assert.doesNotMatch(r.text, /Bob agent/);
    });
  });

  describe('clone', () => {
    test('cloning the system pack gives the caller an editable copy with an equal graph', async () => {
      const r = await alice.post(`${API}/${pdlcId}/clone`, {});
      expectStatus(r, 201);
      assert.deepEqual(Object.keys(r.body).sort(), RECORD_KEYS);
      assert.equal(r.body.owner_id, aliceId);
      assert.equal(r.body.is_system, false);
      assert.equal(r.body.name, 'Product Development Lifecycle (copy)');
      assert.equal(r.body.slug, 'product-development-lifecycle-copy');
      assert.equal(r.body.version, 1);
      assert.deepEqual(r.body.stages, PDLC);
      const original = (await alice.get(`${API}/${pdlcId}/graph`)).body;
      const copy = (await alice.get(`${API}/${r.body.id}/graph`)).body;
      assert.deepEqual(copy.nodes, original.nodes, 'system agents stay referenced');
      assert.deepEqual(copy.edges, original.edges);
      const save = await alice.put(`${API}/${r.body.id}/graph`, {
        nodes: copy.nodes,
        edges: copy.edges,
        version: copy.version,
      });
      expectStatus(save, 200, 'the clone is editable');
      assert.equal(save.body.version, 2);
    });

    test('clone with a name and slug; a taken slug is 409; bob can clone the system pack too', async () => {
      const r = await alice.post(`${API}/${pdlcId}/clone`, { name: 'My lifecycle', slug: 'my-lifecycle' });
      expectStatus(r, 201);
      assert.equal(r.body.name, 'My lifecycle');
      assert.equal(r.body.slug, 'my-lifecycle');
      expectStatus(await alice.post(`${API}/${pdlcId}/clone`, { slug: 'my-lifecycle' }), 409);
      expectStatus(await alice.post(`${API}/${pdlcId}/clone`, { slug: 'Bad Slug' }), 400);
      expectStatus(await alice.post(`${API}/${pdlcId}/clone`, { owner_id: aliceId }), 400);
      const again = await alice.post(`${API}/${r.body.id}/clone`, {});
      expectStatus(again, 201, 'cloning an own pack');
      assert.equal(again.body.name, 'My lifecycle (copy)');
      const bobs = await bob.post(`${API}/${pdlcId}/clone`, {});
      expectStatus(bobs, 201);
      assert.equal(bobs.body.owner_id, bobId);
    });
  });

  describe('contract', () => {
    test('the OpenAPI document describes every workflow route with its bodies', async () => {
      const doc = (await new Client(t.url).get('/openapi.json')).body;
      const paths = doc.paths;
      assert.ok(paths[API].get && paths[API].post);
      assert.ok(paths[`${API}/{id}`].get && paths[`${API}/{id}`].put && paths[`${API}/{id}`].delete);
      assert.ok(paths[`${API}/{id}/graph`].get && paths[`${API}/{id}/graph`].put);
      assert.ok(paths[`${API}/{id}/clone`].post && paths[`${API}/{id}/export`].post && paths[`${API}/import`].post);
      const ref = (op: any) => op.requestBody.content['application/json'].schema.$ref;
      assert.match(ref(paths[API].post), /CreateWorkflowDto$/);
      assert.match(ref(paths[`${API}/{id}`].put), /UpdateWorkflowDto$/);
      assert.match(ref(paths[`${API}/{id}/graph`].put), /SaveGraphDto$/);
      assert.match(ref(paths[`${API}/import`].post), /PackDocumentView$/);
      const create = doc.components.schemas.CreateWorkflowDto;
      assert.deepEqual(create.required, ['name']);
      assert.ok(!('id' in create.properties) && !('version' in create.properties));
    });
  });

  describe('runtime helpers', () => {
    test('listVisible and getPackForRuntime respect visibility; null = system packs only', async () => {
      const svc = t.created.app.get(WorkflowsService);
      const own = await createPack(alice, { name: 'Runtime pack' });
      const g = { nodes: [agentNode('a', aliceAgent, 'discover')], edges: [edge('start', 'a')] };
      expectStatus(await alice.put(`${API}/${own.id}/graph`, g), 200);
      const anon = await svc.listVisible(null);
      assert.ok(anon.length >= 1 && anon.every((w) => w.is_system));
      const mine = await svc.listVisible({ id: aliceId, username: 'alice', is_admin: false });
      assert.ok(mine.some((w) => w.id === own.id));
      assert.ok(mine.every((w) => w.is_system || w.owner_id === aliceId));
      const pack = await svc.getPackForRuntime({ id: aliceId, username: 'alice', is_admin: false }, own.id);
      assert.deepEqual(pack, {
        id: own.id,
        slug: own.slug,
        name: own.name,
        domain: 'pdlc',
        stages: PDLC,
        nodes: g.nodes,
        edges: g.edges,
      });
      const system = await svc.getPackForRuntime(null, pdlcId);
      assert.equal(system.nodes.length, 11);
      await assert.rejects(svc.getPackForRuntime(null, own.id), (e: { status?: number }) => e.status === 404);
      await assert.rejects(
        svc.getPackForRuntime({ id: bobId, username: 'bob', is_admin: false }, own.id),
        (e: { status?: number }) => e.status === 404,
      );
    });
  });
});
