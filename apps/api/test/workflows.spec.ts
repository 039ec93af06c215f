/** /studio/api/workflows: the seeded system PDLC pack, CRUD and slugs (graph: workflows-graph.spec.ts; fields, ownership, clone, contract: workflows-access.spec.ts). */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Agent } from '../src/modules/agents/agent.entity';
import { PdlcSeedService } from '../src/modules/workflows/pdlc-seed.service';
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
const SDLC = ['plan', 'design', 'implement', 'review', 'test', 'release'];

type Node = {
  node_key: string;
  type: 'agent' | 'gate' | 'branch';
  agent_id: number | null;
  stage_label: string | null;
  config: Record<string, unknown>;
  position_x: number;
  position_y: number;
};
const isProblem = (r: Res) => assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
const fields = (r: Res) => (r.body.errors ?? []).map((e: { field: string }) => e.field);

function expectStatus(r: Res, status: number, what = '') {
  assert.equal(r.status, status, `${what} expected ${status}, got ${r.status}: ${r.text.slice(0, 500)}`);
  if (status >= 400) isProblem(r);
}

describe('workflows', () => {
  let t: TestApp;
  let ds: DataSource;
  let alice: Client;
  let bob: Client;
  let aliceId: number;
  let bobId: number;
  let pdlcId: number;
  let systemAgentIds: number[];

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
    await makeAgent(aliceId, 'Alice agent');
    await makeAgent(bobId, 'Bob agent');
    const list = await alice.get(API);
    const pdlc = list.body.find((w: { slug: string; is_system: boolean }) => w.slug === 'pdlc' && w.is_system);
    assert.ok(pdlc, 'the system PDLC pack is seeded');
    pdlcId = pdlc.id;
    systemAgentIds = (await alice.get(`${API}/${pdlcId}`)).body.nodes
      .filter((n: Node) => n.type === 'agent')
      .map((n: Node) => n.agent_id);
  });
  afterAll(() => t.close());

  describe('the seeded system PDLC pack', () => {
    test('has six stages, an agent per stage with its artifact, and gates between stages, laid out in stage lanes', async () => {
      const r = await alice.get(`${API}/${pdlcId}`);
      expectStatus(r, 200);
      const w = r.body;
      assert.equal(w.name, 'Product Development Lifecycle');
      assert.equal(w.domain, 'pdlc');
      assert.deepEqual(w.stages, PDLC);
      assert.equal(w.is_system, true);
      assert.equal(w.owner_id, null);
      const keys = w.nodes.map((n: Node) => n.node_key);
      assert.deepEqual(keys, [
        'discover',
        'discover-gate',
        'design',
        'design-gate',
        'develop',
        'develop-gate',
        'test',
        'test-gate',
        'deploy',
        'deploy-gate',
        'iterate',
      ]);
      const artifacts = w.nodes
        .filter((n: Node) => n.type === 'agent')
        .map((n: Node) => [n.stage_label, n.config.artifact]);
      assert.deepEqual(artifacts, [
        ['discover', 'docs/discovery.md'],
        ['design', 'docs/design.md'],
        ['develop', 'docs/implementation.md'],
        ['test', 'docs/test-plan.md'],
        ['deploy', 'docs/release.md'],
        ['iterate', 'docs/retro.md'],
      ]);
      const gates = w.nodes.filter((n: Node) => n.type === 'gate').map((n: Node) => n.stage_label);
      assert.deepEqual(gates, PDLC.slice(0, 5));
      // one lane per stage, top to bottom; in each lane the agent, then its gate to the right
      const at = (key: string) => w.nodes.find((n: Node) => n.node_key === key) as Node;
      const lanes = PDLC.map((stage) => at(stage).position_y);
      assert.deepEqual(
        [...lanes].sort((a, b) => a - b),
        lanes,
        'stages top to bottom',
      );
      assert.equal(new Set(lanes).size, PDLC.length, 'one lane per stage');
      for (const stage of PDLC.slice(0, 5)) {
        assert.equal(at(`${stage}-gate`).position_y, at(stage).position_y, `${stage}: gate in the agent's lane`);
        assert.ok(at(`${stage}-gate`).position_x > at(stage).position_x, `${stage}: gate right of the agent`);
      }
      assert.deepEqual(w.edges[0], { from_node: 'start', to_node: 'discover', condition: null });
      assert.equal(w.edges.length, 11);
      for (let i = 1; i < keys.length; i++)
        assert.deepEqual(w.edges[i], { from_node: keys[i - 1], to_node: keys[i], condition: null });
    });

    test('system agents and skills: one per stage, readable prompts, read and write tools', async () => {
      const agents = await ds.getRepository(Agent).findBy({ is_system: true });
      const seeded = agents.filter((a) => systemAgentIds.includes(a.id));
      assert.equal(seeded.length, 6);
      for (const a of seeded) {
        assert.equal(a.owner_id, null);
        assert.equal(a.model_id, null, 'system agents use the server default model');
        assert.equal(a.skill_ids.length, 1);
        assert.ok(a.system_prompt.length > 200, 'a prompt worth reading');
        assert.match(a.system_prompt, /docs\/[a-z-]+\.md/);
        for (const tool of ['read_file', 'write_file', 'list_files'])
          assert.ok(a.tool_allowlist.includes(tool), `${a.name} may ${tool}`);
      }
      const skillIds = seeded.flatMap((a) => a.skill_ids);
      const skills = await ds.query(
        `SELECT name, prompt_md, is_system, owner_id FROM skills WHERE id = ANY($1::int[])`,
        [skillIds],
      );
      assert.equal(skills.length, 6);
      for (const s of skills) {
        assert.equal(s.is_system, true);
        assert.equal(s.owner_id, null);
        assert.ok(s.prompt_md.length > 200);
      }
    });

    test('seeding again (twice) creates nothing and changes nothing', async () => {
      const before = await rowCounts();
      const graph = (await alice.get(`${API}/${pdlcId}/graph`)).body;
      const seeder = t.created.app.get(PdlcSeedService);
      assert.deepEqual(await seeder.seed(), { skills: 0, agents: 0, workflows: 0 });
      assert.deepEqual(await seeder.seed(), { skills: 0, agents: 0, workflows: 0 });
      assert.deepEqual(await rowCounts(), before);
      assert.deepEqual((await alice.get(`${API}/${pdlcId}/graph`)).body, graph);
      const packs = await ds.query(`SELECT count(*)::int AS n FROM workflows WHERE slug = 'pdlc' AND is_system`);
      assert.equal(packs[0].n, 1);
    });
  });

  describe('CRUD', () => {
    test('create with only a name: pdlc defaults, derived slug, exact record fields', async () => {
      const r = await alice.post(API, { name: 'Mobile App Launch' });
      expectStatus(r, 201);
      assert.deepEqual(Object.keys(r.body).sort(), RECORD_KEYS);
      assert.equal(r.body.slug, 'mobile-app-launch');
      assert.equal(r.body.domain, 'pdlc');
      assert.deepEqual(r.body.stages, PDLC);
      assert.equal(r.body.description, '');
      assert.equal(r.body.version, 1);
      assert.equal(r.body.owner_id, aliceId);
      assert.equal(r.body.is_system, false);
      assert.ok(!Number.isNaN(Date.parse(r.body.created_at)));
      const got = await alice.get(`${API}/${r.body.id}`);
      expectStatus(got, 200);
      assert.deepEqual(got.body.nodes, []);
      assert.deepEqual(got.body.edges, []);
      assert.deepEqual(Object.keys(got.body).sort(), [...RECORD_KEYS, 'edges', 'nodes'].sort());
    });

    test('domains: sdlc defaults, custom requires stages, stages without a domain are custom', async () => {
      const sdlc = await createPack(alice, { name: 'Service', domain: 'sdlc', description: 'backend' });
      assert.deepEqual(sdlc.stages, SDLC);
      assert.equal(sdlc.description, 'backend');
      const missing = await alice.post(API, { name: 'Research', domain: 'research' });
      expectStatus(missing, 400);
      assert.deepEqual(fields(missing), ['stages']);
      const custom = await createPack(alice, {
        name: 'Research',
        domain: 'research',
        stages: ['read', 'write_up', 'peer-review'],
      });
      assert.deepEqual(custom.stages, ['read', 'write_up', 'peer-review']);
      assert.equal(custom.domain, 'research');
      const implicit = await createPack(alice, { name: 'Two step', stages: ['one', 'two'] });
      assert.equal(implicit.domain, 'custom');
      const pdlcOwn = await createPack(alice, { name: 'Short pdlc', domain: 'pdlc', stages: ['discover', 'design'] });
      assert.deepEqual(pdlcOwn.stages, ['discover', 'design']);
    });

    test('invalid fields are 400 with field errors', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{}, 'name'],
        [{ name: '' }, 'name'],
        [{ name: '   ' }, 'name'],
        [{ name: 'x'.repeat(201) }, 'name'],
        [{ name: 42 }, 'name'],
        [{ name: 'ok', slug: 'Has Caps' }, 'slug'],
        [{ name: 'ok', slug: 'a'.repeat(65) }, 'slug'],
        [{ name: 'ok', slug: '' }, 'slug'],
        [{ name: 'ok', slug: null }, 'slug'],
        [{ name: 'ok', domain: 'Bad Domain' }, 'domain'],
        [{ name: 'ok', domain: 'a'.repeat(65) }, 'domain'],
        [{ name: 'ok', stages: [] }, 'stages'],
        [{ name: 'ok', stages: ['a', 'a'] }, 'stages'],
        [{ name: 'ok', stages: ['Upper'] }, 'stages'],
        [{ name: 'ok', stages: ['a'.repeat(65)] }, 'stages'],
        [{ name: 'ok', stages: Array.from({ length: 33 }, (_, i) => `s${i}`) }, 'stages'],
        [{ name: 'ok', stages: 'discover' }, 'stages'],
        [{ name: 'ok', description: 'x'.repeat(65537) }, 'description'],
        [{ name: 'ok', color: 'red' }, 'color'],
      ];
      const before = await rowCounts();
      for (const [body, field] of cases) {
        const r = await alice.post(API, body);
        expectStatus(r, 400, JSON.stringify(body).slice(0, 80));
        assert.ok(fields(r).includes(field), `${JSON.stringify(body).slice(0, 80)} → ${JSON.stringify(r.body.errors)}`);
      }
      const ok32 = await alice.post(API, { name: '32 stages', stages: Array.from({ length: 32 }, (_, i) => `s${i}`) });
      expectStatus(ok32, 201);
      assert.equal((await rowCounts()).workflows, before.workflows + 1);
    });

    test("list: own + system, newest first, never another user's", async () => {
      const older = await createPack(alice, { name: 'List older' });
      const newer = await createPack(alice, { name: 'List newer' });
      const bobs = await createPack(bob, { name: 'Bob list' });
      const r = await alice.get(API);
      expectStatus(r, 200);
      const ids = r.body.map((w: { id: number }) => w.id);
      assert.ok(ids.indexOf(newer.id) < ids.indexOf(older.id));
      assert.ok(ids.includes(pdlcId));
      assert.ok(!ids.includes(bobs.id));
      assert.ok(
        r.body.every((w: { owner_id: number | null; is_system: boolean }) => w.is_system || w.owner_id === aliceId),
      );
      const times = r.body.map((w: { created_at: string }) => Date.parse(w.created_at));
      assert.deepEqual(
        [...times].sort((a, b) => b - a),
        times,
      );
    });

    test('update is partial; delete answers 204 and then 404', async () => {
      const w = await createPack(alice, { name: 'Editable', description: 'first' });
      const r = await alice.put(`${API}/${w.id}`, { description: 'second' });
      expectStatus(r, 200);
      assert.equal(r.body.name, 'Editable');
      assert.equal(r.body.description, 'second');
      assert.equal(r.body.slug, 'editable');
      const renamed = await alice.put(`${API}/${w.id}`, { name: 'Renamed', slug: 'renamed', domain: 'sdlc' });
      expectStatus(renamed, 200);
      assert.equal(renamed.body.name, 'Renamed');
      assert.equal(renamed.body.slug, 'renamed');
      assert.equal(renamed.body.domain, 'sdlc');
      assert.deepEqual(renamed.body.stages, PDLC, 'stages change only when sent');
      const same = await alice.put(`${API}/${w.id}`, { slug: 'renamed' });
      expectStatus(same, 200, 'keeping its own slug');
      for (const body of [{ name: null }, { name: '' }, { stages: [] }, { domain: 'X' }, { description: null }]) {
        expectStatus(await alice.put(`${API}/${w.id}`, body), 400, JSON.stringify(body));
      }
      const del = await alice.delete(`${API}/${w.id}`);
      assert.equal(del.status, 204);
      assert.equal(del.text, '');
      expectStatus(await alice.get(`${API}/${w.id}`), 404);
      expectStatus(await alice.delete(`${API}/${w.id}`), 404);
    });

    test('ids: malformed → 400, unknown or out of range → 404', async () => {
      expectStatus(await alice.get(`${API}/abc`), 400);
      expectStatus(await alice.get(`${API}/999999`), 404);
      expectStatus(await alice.get(`${API}/99999999999`), 404);
      expectStatus(await alice.get(`${API}/0`), 404);
      expectStatus(await alice.put(`${API}/99999999999/graph`, { nodes: [], edges: [] }), 404);
    });

    test('unauthenticated calls are 401', async () => {
      const anon = new Client(t.url);
      expectStatus(await anon.get(API), 401);
      expectStatus(await anon.post(API, { name: 'x' }), 401);
      expectStatus(await anon.get(`${API}/${pdlcId}/graph`), 401);
    });
  });

  describe('slugs', () => {
    test('derived from the name with a numeric suffix when taken; explicit duplicates are 409', async () => {
      const a = await createPack(alice, { name: 'Hello, World!' });
      const b = await createPack(alice, { name: 'hello world' });
      const c = await createPack(alice, { name: 'Héllo  wörld' });
      assert.deepEqual([a.slug, b.slug, c.slug], ['hello-world', 'hello-world-2', 'hello-world-3']);
      const dup = await alice.post(API, { name: 'Other', slug: 'hello-world' });
      expectStatus(dup, 409);
      assert.equal(dup.body.code, 'record.duplicate');
      assert.match(dup.body.detail, /hello-world/);
      const theirs = await createPack(bob, { name: 'Hello World' });
      assert.equal(theirs.slug, 'hello-world', 'slugs are unique per owner');
      const move = await alice.put(`${API}/${c.id}`, { slug: 'hello-world-2' });
      expectStatus(move, 409);
      const symbols = await createPack(alice, { name: '!!!' });
      assert.equal(symbols.slug, 'workflow');
      const long = await createPack(alice, { name: 'L'.repeat(200) });
      assert.equal(long.slug, 'l'.repeat(64));
      const long2 = await createPack(alice, { name: 'L'.repeat(199) });
      assert.equal(long2.slug, `${'l'.repeat(62)}-2`);
    });

    test("a derived slug avoids the system packs' slugs; an explicit one may shadow it", async () => {
      const derived = await createPack(alice, { name: 'PDLC' });
      assert.equal(derived.slug, 'pdlc-2');
      const explicit = await createPack(alice, { name: 'My PDLC', slug: 'pdlc' });
      assert.equal(explicit.slug, 'pdlc');
    });
  });
});
