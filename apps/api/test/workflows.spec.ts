import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Agent } from '../src/modules/agents/agent.entity';
import { Project } from '../src/modules/projects/project.entity';
import { PdlcSeedService } from '../src/modules/workflows/pdlc-seed.service';
import { WorkflowsService } from '../src/modules/workflows/workflows.service';
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client, newUser, type Res } from './support/http';

const API = '/studio/api/workflows';
const RECORD_KEYS = ['created_at', 'description', 'domain', 'id', 'is_system', 'name', 'owner_id', 'slug', 'stages', 'updated_at', 'version'];
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
const gateNode = (key: string, stage: string): Node => ({
  node_key: key,
  type: 'gate',
  agent_id: null,
  stage_label: stage,
  config: {},
  position_x: 100,
  position_y: 50,
});
const edge = (from: string, to: string, condition: string | null = null): Edge => ({ from_node: from, to_node: to, condition });

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
    aliceAgent = await makeAgent(aliceId, 'Alice agent');
    bobAgent = await makeAgent(bobId, 'Bob agent');
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
        'discover', 'discover-gate', 'design', 'design-gate', 'develop', 'develop-gate',
        'test', 'test-gate', 'deploy', 'deploy-gate', 'iterate',
      ]);
      const artifacts = w.nodes.filter((n: Node) => n.type === 'agent').map((n: Node) => [n.stage_label, n.config.artifact]);
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
      assert.deepEqual([...lanes].sort((a, b) => a - b), lanes, 'stages top to bottom');
      assert.equal(new Set(lanes).size, PDLC.length, 'one lane per stage');
      for (const stage of PDLC.slice(0, 5)) {
        assert.equal(at(`${stage}-gate`).position_y, at(stage).position_y, `${stage}: gate in the agent's lane`);
        assert.ok(at(`${stage}-gate`).position_x > at(stage).position_x, `${stage}: gate right of the agent`);
      }
      assert.deepEqual(w.edges[0], { from_node: 'start', to_node: 'discover', condition: null });
      assert.equal(w.edges.length, 11);
      for (let i = 1; i < keys.length; i++) assert.deepEqual(w.edges[i], { from_node: keys[i - 1], to_node: keys[i], condition: null });
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
        for (const tool of ['read_file', 'write_file', 'list_files']) assert.ok(a.tool_allowlist.includes(tool), `${a.name} may ${tool}`);
      }
      const skillIds = seeded.flatMap((a) => a.skill_ids);
      const skills = await ds.query(`SELECT name, prompt_md, is_system, owner_id FROM skills WHERE id = ANY($1::int[])`, [skillIds]);
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
      const custom = await createPack(alice, { name: 'Research', domain: 'research', stages: ['read', 'write_up', 'peer-review'] });
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

    test('list: own + system, newest first, never another user\'s', async () => {
      const older = await createPack(alice, { name: 'List older' });
      const newer = await createPack(alice, { name: 'List newer' });
      const bobs = await createPack(bob, { name: 'Bob list' });
      const r = await alice.get(API);
      expectStatus(r, 200);
      const ids = r.body.map((w: { id: number }) => w.id);
      assert.ok(ids.indexOf(newer.id) < ids.indexOf(older.id));
      assert.ok(ids.includes(pdlcId));
      assert.ok(!ids.includes(bobs.id));
      assert.ok(r.body.every((w: { owner_id: number | null; is_system: boolean }) => w.is_system || w.owner_id === aliceId));
      const times = r.body.map((w: { created_at: string }) => Date.parse(w.created_at));
      assert.deepEqual([...times].sort((a, b) => b - a), times);
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

    test('a derived slug avoids the system packs\' slugs; an explicit one may shadow it', async () => {
      const derived = await createPack(alice, { name: 'PDLC' });
      assert.equal(derived.slug, 'pdlc-2');
      const explicit = await createPack(alice, { name: 'My PDLC', slug: 'pdlc' });
      assert.equal(explicit.slug, 'pdlc');
    });
  });

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
    test('another user\'s workflow is 404 on every verb, and stays untouched', async () => {
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

    test('an agent node may not name another user\'s agent', async () => {
      const w = await createPack(alice, { name: 'Borrowing' });
      const r = await alice.put(`${API}/${w.id}/graph`, { nodes: [agentNode('a', bobAgent, 'discover')], edges: [edge('start', 'a')] });
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
      const save = await alice.put(`${API}/${r.body.id}/graph`, { nodes: copy.nodes, edges: copy.edges, version: copy.version });
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

  describe('graph', () => {
    let w: { id: number };
    const good = () => ({
      nodes: [
        agentNode('research', aliceAgent, 'discover', { position_x: 10.5, position_y: -3 }),
        gateNode('research-gate', 'discover'),
        { ...agentNode('shape', systemAgentIds[1], 'design'), config: { artifact: 'docs/design.md', notes: { nested: [1, 2] } } },
        { node_key: 'route', type: 'branch', agent_id: null, stage_label: null, config: {}, position_x: 5, position_y: 5 } as Node,
        agentNode('orphan', aliceAgent, 'develop'),
      ],
      edges: [
        edge('start', 'research'),
        edge('research', 'research-gate'),
        edge('research-gate', 'route'),
        edge('route', 'shape', 'contains(reply, "design")'),
        edge('route', 'shape'),
      ],
    });

    beforeAll(async () => {
      w = await createPack(alice, { name: 'Graph editing' });
    });

    test('a new pack has an empty graph at version 1', async () => {
      const r = await alice.get(`${API}/${w.id}/graph`);
      expectStatus(r, 200);
      assert.deepEqual(r.body, { nodes: [], edges: [], version: 1 });
    });

    test('PUT replaces the graph, bumps the version, returns warnings; GET returns it in saved order', async () => {
      const body = good();
      const r = await alice.put(`${API}/${w.id}/graph`, { ...body, version: 1 });
      expectStatus(r, 200);
      assert.equal(r.body.version, 2);
      assert.deepEqual(r.body.nodes, body.nodes);
      assert.deepEqual(r.body.edges, body.edges);
      assert.ok(Array.isArray(r.body.warnings));
      assert.ok(r.body.warnings.some((x: { node_key?: string }) => x.node_key === 'orphan'), 'unreachable node is a warning');
      const got = await alice.get(`${API}/${w.id}/graph`);
      assert.deepEqual(got.body, { nodes: body.nodes, edges: body.edges, version: 2 });
      const detail = await alice.get(`${API}/${w.id}`);
      assert.equal(detail.body.version, 2);
      assert.deepEqual(detail.body.nodes, body.nodes);
      assert.deepEqual(detail.body.edges, body.edges);
      const second = await alice.put(`${API}/${w.id}/graph`, { nodes: body.nodes.slice(0, 2), edges: body.edges.slice(0, 2) });
      expectStatus(second, 200, 'a save without version');
      assert.equal(second.body.version, 3);
      assert.equal((await alice.get(`${API}/${w.id}/graph`)).body.nodes.length, 2);
      const third = await alice.put(`${API}/${w.id}/graph`, { ...body, version: null });
      expectStatus(third, 200, 'version null = no check');
      assert.equal(third.body.version, 4);
    });

    test('invalid graphs are 400 with field paths, and nothing changes', async () => {
      const base = good();
      const before = (await alice.get(`${API}/${w.id}/graph`)).body;
      const countsBefore = await rowCounts();
      const cases: Array<[string, unknown, string]> = [
        ['dangling edge', { nodes: base.nodes, edges: [...base.edges, edge('research', 'nowhere')] }, 'edges[5].to_node'],
        ['duplicate key', { nodes: [...base.nodes, gateNode('research', 'discover')], edges: base.edges }, 'nodes[5].node_key'],
        ['start as a node', { nodes: [gateNode('start', 'discover'), ...base.nodes], edges: base.edges }, 'nodes[0].node_key'],
        ['start as a target', { nodes: base.nodes, edges: [...base.edges, edge('research', 'start')] }, 'edges[5].to_node'],
        ['bad stage', { nodes: [agentNode('x', aliceAgent, 'marketing'), ...base.nodes], edges: base.edges }, 'nodes[0].stage_label'],
        ['bad condition', { nodes: base.nodes, edges: [...base.edges, edge('route', 'research', 'contains(reply,')] }, 'edges[5].condition'],
        ['bad type', { nodes: [{ ...gateNode('x', 'discover'), type: 'loop' }], edges: [] }, 'nodes[0].type'],
        ['unknown agent', { nodes: [agentNode('x', 99999999, 'discover')], edges: [] }, 'nodes[0].agent_id'],
        ['absurd agent id', { nodes: [agentNode('x', 99999999999, 'discover')], edges: [] }, 'nodes[0].agent_id'],
        ['bad key', { nodes: [gateNode('has space', 'discover')], edges: [] }, 'nodes[0].node_key'],
        ['absolute artifact', { nodes: [agentNode('x', aliceAgent, 'discover', { config: { artifact: '/etc/passwd' } })], edges: [] }, 'nodes[0].config.artifact'],
        ['escaping artifact', { nodes: [agentNode('x', aliceAgent, 'discover', { config: { artifact: '../x.md' } })], edges: [] }, 'nodes[0].config.artifact'],
        ['config not an object', { nodes: [{ ...gateNode('x', 'discover'), config: [] }], edges: [] }, 'nodes[0].config'],
        ['unknown node field', { nodes: [{ ...gateNode('x', 'discover'), color: 'red' }], edges: [] }, 'nodes[0].color'],
        ['nodes missing', { edges: [] }, 'nodes'],
        ['unknown top-level key', { nodes: [], edges: [], name: 'x' }, 'name'],
        ['id in the body', { nodes: [], edges: [], id: 5 }, 'id'],
        ['bad version', { nodes: [], edges: [], version: 'two' }, 'version'],
        ['fractional version', { nodes: [], edges: [], version: 1.5 }, 'version'],
        ['2,001 nodes', { nodes: Array.from({ length: 2001 }, (_, i) => gateNode(`g${i}`, 'discover')), edges: [] }, 'nodes'],
        ['5,001 edges', { nodes: base.nodes, edges: Array.from({ length: 5001 }, () => edge('start', 'research')) }, 'edges'],
      ];
      for (const [what, body, field] of cases) {
        const r = await alice.put(`${API}/${w.id}/graph`, body);
        expectStatus(r, 400, what);
        assert.equal(r.body.code, 'validation', what);
        assert.ok(fields(r).includes(field), `${what}: ${JSON.stringify(r.body.errors).slice(0, 300)}`);
      }
      const proto = await alice.put(
        `${API}/${w.id}/graph`,
        `{"nodes":[{"node_key":"x","type":"gate","agent_id":null,"stage_label":"discover","config":{"a":{"__proto__":{"polluted":true}}},"position_x":0,"position_y":0}],"edges":[]}`,
      );
      expectStatus(proto, 400, '__proto__ in config');
      assert.deepEqual(fields(proto), ['nodes[0].config.a']);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      assert.deepEqual((await alice.get(`${API}/${w.id}/graph`)).body, before);
      assert.deepEqual(await rowCounts(), countsBefore);
    });

    test('a stale version is 409 graph.stale_version naming both versions, and the graph is unchanged', async () => {
      const current = (await alice.get(`${API}/${w.id}/graph`)).body;
      const r = await alice.put(`${API}/${w.id}/graph`, { nodes: [], edges: [], version: current.version - 1 });
      expectStatus(r, 409);
      assert.equal(r.body.code, 'graph.stale_version');
      assert.match(r.body.detail, new RegExp(`\\b${current.version - 1}\\b`));
      assert.match(r.body.detail, new RegExp(`\\b${current.version}\\b`));
      const future = await alice.put(`${API}/${w.id}/graph`, { nodes: [], edges: [], version: current.version + 5 });
      expectStatus(future, 409);
      assert.deepEqual((await alice.get(`${API}/${w.id}/graph`)).body, current);
    });

    test('two editors saving from the same version: exactly one wins, the other gets 409', async () => {
      const current = (await alice.get(`${API}/${w.id}/graph`)).body;
      const body = good();
      const results = await Promise.all([
        alice.put(`${API}/${w.id}/graph`, { nodes: body.nodes.slice(0, 1), edges: body.edges.slice(0, 1), version: current.version }),
        alice.put(`${API}/${w.id}/graph`, { nodes: body.nodes.slice(0, 2), edges: body.edges.slice(0, 2), version: current.version }),
      ]);
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 409]);
      const winner = results.find((r) => r.status === 200) as Res;
      const now = (await alice.get(`${API}/${w.id}/graph`)).body;
      assert.equal(now.version, current.version + 1);
      assert.deepEqual(now.nodes, winner.body.nodes);
    });

    test('a 2,000-node, 5,000-edge graph saves quickly and reads back in order', async () => {
      const big = await createPack(alice, { name: 'Big graph' });
      const nodes: Node[] = Array.from({ length: 2000 }, (_, i) =>
        i % 2 === 0
          ? agentNode(`n${i}`, i % 4 === 0 ? aliceAgent : systemAgentIds[0], PDLC[i % 6], { position_x: i * 10, position_y: i % 7 })
          : gateNode(`n${i}`, PDLC[i % 6]),
      );
      const edges: Edge[] = [edge('start', 'n0')];
      for (let i = 1; i < 2000; i++) edges.push(edge(`n${i - 1}`, `n${i}`));
      for (let i = 0; edges.length < 5000; i++) edges.push(edge(`n${i % 2000}`, `n${(i + 7) % 2000}`, `contains(reply, "k${i}")`));
      const started = Date.now();
      const r = await alice.put(`${API}/${big.id}/graph`, { nodes, edges, version: 1 });
      const elapsed = Date.now() - started;
      expectStatus(r, 200);
      assert.equal(r.body.version, 2);
      console.info(`saving 2,000 nodes and 5,000 edges took ${elapsed} ms (HTTP round trip included)`);
      assert.ok(elapsed < 2000, `saving 2,000 nodes took ${elapsed} ms`);
      const got = (await alice.get(`${API}/${big.id}/graph`)).body;
      assert.equal(got.nodes.length, 2000);
      assert.equal(got.edges.length, 5000);
      assert.deepEqual(got.nodes.map((n: Node) => n.node_key), nodes.map((n) => n.node_key));
      assert.deepEqual(got.edges, edges);
      // Saving it again replaces rather than appends.
      const again = await alice.put(`${API}/${big.id}/graph`, { nodes, edges, version: 2 });
      expectStatus(again, 200);
      const rows = await ds.query('SELECT count(*)::int AS n FROM workflow_nodes WHERE workflow_id = $1', [big.id]);
      assert.equal(rows[0].n, 2000);
    });

    test('awkward values survive the bulk insert verbatim (NULL-like keys, quotes, braces, unicode)', async () => {
      const p = await createPack(alice, { name: 'Awkward', stages: ['null', 'x_y'] });
      const g = {
        nodes: [
          agentNode('NULL', aliceAgent, 'null', { config: { artifact: 'docs/ü {a,b} "q".md', note: 'back\\slash, "quotes", {braces}', n: null, list: ['', 'NULL'] }, position_x: 1e-7, position_y: -123456.75 }),
          { node_key: 'null', type: 'branch', agent_id: null, stage_label: null, config: {}, position_x: 0, position_y: 0 } as Node,
          gateNode('_-', 'x_y'),
        ],
        edges: [edge('start', 'NULL'), edge('NULL', 'null'), edge('null', '_-', 'contains(reply, "a,b {c} \\"d\\"")'), edge('null', '_-', '   ')],
      };
      const r = await alice.put(`${API}/${p.id}/graph`, g);
      expectStatus(r, 200);
      const got = (await alice.get(`${API}/${p.id}/graph`)).body;
      assert.deepEqual(got.nodes, g.nodes);
      assert.deepEqual(got.edges, [...g.edges.slice(0, 3), edge('null', '_-', null)], 'a blank condition is the default edge');
    });

    test('changing stages may not strand nodes (400); removing an unused stage works', async () => {
      const p = await createPack(alice, { name: 'Stage edits' });
      const g = { nodes: [agentNode('a', aliceAgent, 'discover'), agentNode('b', aliceAgent, 'develop')], edges: [edge('start', 'a'), edge('a', 'b')] };
      expectStatus(await alice.put(`${API}/${p.id}/graph`, g), 200);
      const bad = await alice.put(`${API}/${p.id}`, { stages: ['discover', 'design'] });
      expectStatus(bad, 400);
      assert.deepEqual(fields(bad), ['stages']);
      assert.match(bad.body.errors[0].message, /"develop".*"b"/);
      assert.deepEqual((await alice.get(`${API}/${p.id}`)).body.stages, PDLC);
      const ok = await alice.put(`${API}/${p.id}`, { stages: ['develop', 'discover'] });
      expectStatus(ok, 200);
      assert.deepEqual(ok.body.stages, ['develop', 'discover']);
      const badNode = await alice.put(`${API}/${p.id}/graph`, { nodes: [agentNode('c', aliceAgent, 'design')], edges: [] });
      expectStatus(badNode, 400, 'design is no longer a stage');
    });

    test('deleting a pack bound to projects is 409 naming them', async () => {
      const p = await createPack(alice, { name: 'Bound pack' });
      const repo = ds.getRepository(Project);
      const proj = await repo.save(repo.create({ owner_id: aliceId, slug: 'launch-site', name: 'Launch site', pack_id: p.id, domain: 'pdlc', stage: 'design' }));
      const r = await alice.delete(`${API}/${p.id}`);
      expectStatus(r, 409);
      assert.equal(r.body.code, 'record.referenced');
      assert.match(r.body.detail, /launch-site/);
      const removeStage = await alice.put(`${API}/${p.id}`, { stages: ['discover', 'develop'] });
      expectStatus(removeStage, 409, 'a bound project sits in the removed stage');
      assert.match(removeStage.body.detail, /launch-site/);
      await repo.delete({ id: proj.id });
      assert.equal((await alice.delete(`${API}/${p.id}`)).status, 204);
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
      assert.deepEqual(pack, { id: own.id, slug: own.slug, name: own.name, domain: 'pdlc', stages: PDLC, nodes: g.nodes, edges: g.edges });
      const system = await svc.getPackForRuntime(null, pdlcId);
      assert.equal(system.nodes.length, 11);
      await assert.rejects(svc.getPackForRuntime(null, own.id), (e: { status?: number }) => e.status === 404);
      await assert.rejects(svc.getPackForRuntime({ id: bobId, username: 'bob', is_admin: false }, own.id), (e: { status?: number }) => e.status === 404);
    });
  });
});
