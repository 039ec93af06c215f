/** /studio/api/workflows/:id/graph: saving and reading the relational graph, validation and versions (bulk, values, stages: workflows-graph-bulk.spec.ts). */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { type TestApp } from './support/app';
import { type Client, type Res } from './support/http';
import {
  agentNode,
  API,
  countRows,
  createPack,
  edge,
  expectStatus,
  fields,
  gateNode,
  type Node,
  startGraphWorld,
} from './support/workflow-graph';

describe('workflows', () => {
  let t: TestApp;
  let ds: DataSource;
  let alice: Client;
  let aliceAgent: number;
  let systemAgentIds: number[];
  const rowCounts = () => countRows(ds);

  beforeAll(async () => {
    ({ t, ds, alice, aliceAgent, systemAgentIds } = await startGraphWorld());
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
  });
});
