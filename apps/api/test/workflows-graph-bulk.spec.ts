/** /studio/api/workflows/:id/graph: large graphs, awkward values, stage edits and deleting bound packs (the rest: workflows-graph.spec.ts). */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Project } from '../src/modules/projects/project.entity';
import { type TestApp } from './support/app';
import { type Client } from './support/http';
import {
  agentNode,
  API,
  createPack,
  type Edge,
  edge,
  expectStatus,
  fields,
  gateNode,
  type Node,
  PDLC,
  startGraphWorld,
} from './support/workflow-graph';

describe('workflows', () => {
  let t: TestApp;
  let ds: DataSource;
  let alice: Client;
  let aliceId: number;
  let aliceAgent: number;
  let systemAgentIds: number[];

  beforeAll(async () => {
    ({ t, ds, alice, aliceId, aliceAgent, systemAgentIds } = await startGraphWorld());
  });
  afterAll(() => t.close());

  describe('graph', () => {
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
      // how long this takes is the bench's business (docs/performance.md), not an assertion here
      const r = await alice.put(`${API}/${big.id}/graph`, { nodes, edges, version: 1 });
      expectStatus(r, 200);
      assert.equal(r.body.version, 2);
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
