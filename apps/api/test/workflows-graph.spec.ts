/** /studio/api/workflows/:id/graph: saving and reading the relational graph, validation, versions and limits. */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Agent } from '../src/modules/agents/agent.entity';
import { Project } from '../src/modules/projects/project.entity';
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client, newUser, type Res } from './support/http';

const API = '/studio/api/workflows';
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
const gateNode = (key: string, stage: string): Node => ({
  node_key: key,
  type: 'gate',
  agent_id: null,
  stage_label: stage,
  config: {},
  position_x: 100,
  position_y: 50,
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

  describe('graph', () => {
    let w: { id: number };
    const good = () => ({
      nodes: [
        agentNode('research', aliceAgent, 'discover', { position_x: 10.5, position_y: -3 }),
        gateNode('research-gate', 'discover'),
        {
          ...agentNode('shape', systemAgentIds[1], 'design'),
          config: { artifact: 'docs/design.md', notes: { nested: [1, 2] } },
        },
        {
          node_key: 'route',
          type: 'branch',
          agent_id: null,
          stage_label: null,
          config: {},
          position_x: 5,
          position_y: 5,
        } as Node,
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
      assert.ok(
        r.body.warnings.some((x: { node_key?: string }) => x.node_key === 'orphan'),
        'unreachable node is a warning',
      );
      const got = await alice.get(`${API}/${w.id}/graph`);
      assert.deepEqual(got.body, { nodes: body.nodes, edges: body.edges, version: 2 });
      const detail = await alice.get(`${API}/${w.id}`);
      assert.equal(detail.body.version, 2);
      assert.deepEqual(detail.body.nodes, body.nodes);
      assert.deepEqual(detail.body.edges, body.edges);
      const second = await alice.put(`${API}/${w.id}/graph`, {
        nodes: body.nodes.slice(0, 2),
        edges: body.edges.slice(0, 2),
      });
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
        [
          'dangling edge',
          { nodes: base.nodes, edges: [...base.edges, edge('research', 'nowhere')] },
          'edges[5].to_node',
        ],
        [
          'duplicate key',
          { nodes: [...base.nodes, gateNode('research', 'discover')], edges: base.edges },
          'nodes[5].node_key',
        ],
        [
          'start as a node',
          { nodes: [gateNode('start', 'discover'), ...base.nodes], edges: base.edges },
          'nodes[0].node_key',
        ],
        [
          'start as a target',
          { nodes: base.nodes, edges: [...base.edges, edge('research', 'start')] },
          'edges[5].to_node',
        ],
        [
          'bad stage',
          { nodes: [agentNode('x', aliceAgent, 'marketing'), ...base.nodes], edges: base.edges },
          'nodes[0].stage_label',
        ],
        [
          'bad condition',
          { nodes: base.nodes, edges: [...base.edges, edge('route', 'research', 'contains(reply,')] },
          'edges[5].condition',
        ],
        ['bad type', { nodes: [{ ...gateNode('x', 'discover'), type: 'loop' }], edges: [] }, 'nodes[0].type'],
        ['unknown agent', { nodes: [agentNode('x', 99999999, 'discover')], edges: [] }, 'nodes[0].agent_id'],
        ['absurd agent id', { nodes: [agentNode('x', 99999999999, 'discover')], edges: [] }, 'nodes[0].agent_id'],
        ['bad key', { nodes: [gateNode('has space', 'discover')], edges: [] }, 'nodes[0].node_key'],
        [
          'absolute artifact',
          { nodes: [agentNode('x', aliceAgent, 'discover', { config: { artifact: '/etc/passwd' } })], edges: [] },
          'nodes[0].config.artifact',
        ],
        [
          'escaping artifact',
          { nodes: [agentNode('x', aliceAgent, 'discover', { config: { artifact: '../x.md' } })], edges: [] },
          'nodes[0].config.artifact',
        ],
        [
          'config not an object',
          { nodes: [{ ...gateNode('x', 'discover'), config: [] }], edges: [] },
          'nodes[0].config',
        ],
        [
          'unknown node field',
          { nodes: [{ ...gateNode('x', 'discover'), color: 'red' }], edges: [] },
          'nodes[0].color',
        ],
        ['nodes missing', { edges: [] }, 'nodes'],
        ['unknown top-level key', { nodes: [], edges: [], name: 'x' }, 'name'],
        ['id in the body', { nodes: [], edges: [], id: 5 }, 'id'],
        ['bad version', { nodes: [], edges: [], version: 'two' }, 'version'],
        ['fractional version', { nodes: [], edges: [], version: 1.5 }, 'version'],
        [
          '2,001 nodes',
          { nodes: Array.from({ length: 2001 }, (_, i) => gateNode(`g${i}`, 'discover')), edges: [] },
          'nodes',
        ],
        [
          '5,001 edges',
          { nodes: base.nodes, edges: Array.from({ length: 5001 }, () => edge('start', 'research')) },
          'edges',
        ],
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
        alice.put(`${API}/${w.id}/graph`, {
          nodes: body.nodes.slice(0, 1),
          edges: body.edges.slice(0, 1),
          version: current.version,
        }),
        alice.put(`${API}/${w.id}/graph`, {
          nodes: body.nodes.slice(0, 2),
          edges: body.edges.slice(0, 2),
          version: current.version,
        }),
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
          ? agentNode(`n${i}`, i % 4 === 0 ? aliceAgent : systemAgentIds[0], PDLC[i % 6], {
              position_x: i * 10,
              position_y: i % 7,
            })
          : gateNode(`n${i}`, PDLC[i % 6]),
      );
      const edges: Edge[] = [edge('start', 'n0')];
      for (let i = 1; i < 2000; i++) edges.push(edge(`n${i - 1}`, `n${i}`));
      for (let i = 0; edges.length < 5000; i++)
        edges.push(edge(`n${i % 2000}`, `n${(i + 7) % 2000}`, `contains(reply, "k${i}")`));
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
      assert.deepEqual(
        got.nodes.map((n: Node) => n.node_key),
        nodes.map((n) => n.node_key),
      );
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
          agentNode('NULL', aliceAgent, 'null', {
            config: {
              artifact: 'docs/ü {a,b} "q".md',
              note: 'back\\slash, "quotes", {braces}',
              n: null,
              list: ['', 'NULL'],
            },
            position_x: 1e-7,
            position_y: -123456.75,
          }),
          {
            node_key: 'null',
            type: 'branch',
            agent_id: null,
            stage_label: null,
            config: {},
            position_x: 0,
            position_y: 0,
          } as Node,
          gateNode('_-', 'x_y'),
        ],
        edges: [
          edge('start', 'NULL'),
          edge('NULL', 'null'),
          edge('null', '_-', 'contains(reply, "a,b {c} \\"d\\"")'),
          edge('null', '_-', '   '),
        ],
      };
      const r = await alice.put(`${API}/${p.id}/graph`, g);
      expectStatus(r, 200);
      const got = (await alice.get(`${API}/${p.id}/graph`)).body;
      assert.deepEqual(got.nodes, g.nodes);
      assert.deepEqual(
        got.edges,
        [...g.edges.slice(0, 3), edge('null', '_-', null)],
        'a blank condition is the default edge',
      );
    });

    test('changing stages may not strand nodes (400); removing an unused stage works', async () => {
      const p = await createPack(alice, { name: 'Stage edits' });
      const g = {
        nodes: [agentNode('a', aliceAgent, 'discover'), agentNode('b', aliceAgent, 'develop')],
        edges: [edge('start', 'a'), edge('a', 'b')],
      };
      expectStatus(await alice.put(`${API}/${p.id}/graph`, g), 200);
      const bad = await alice.put(`${API}/${p.id}`, { stages: ['discover', 'design'] });
      expectStatus(bad, 400);
      assert.deepEqual(fields(bad), ['stages']);
      assert.match(bad.body.errors[0].message, /"develop".*"b"/);
      assert.deepEqual((await alice.get(`${API}/${p.id}`)).body.stages, PDLC);
      const ok = await alice.put(`${API}/${p.id}`, { stages: ['develop', 'discover'] });
      expectStatus(ok, 200);
      assert.deepEqual(ok.body.stages, ['develop', 'discover']);
      const badNode = await alice.put(`${API}/${p.id}/graph`, {
        nodes: [agentNode('c', aliceAgent, 'design')],
        edges: [],
      });
      expectStatus(badNode, 400, 'design is no longer a stage');
    });

    test('deleting a pack bound to projects is 409 naming them', async () => {
      const p = await createPack(alice, { name: 'Bound pack' });
      const repo = ds.getRepository(Project);
      const proj = await repo.save(
        repo.create({
          owner_id: aliceId,
          slug: 'launch-site',
          name: 'Launch site',
          pack_id: p.id,
          domain: 'pdlc',
          stage: 'design',
        }),
      );
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
});
