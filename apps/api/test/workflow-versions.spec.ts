/**
 * Workflow versions (docs/API.md "Workflow versions"): every save keeps a version; list (newest first,
 * paged), view and restore one — a restore is a new save, validated against today's workflow, and never
 * rewrites history; another user's workflow is 404, a system one is read-only.
 */
import { type TestApp } from './support/app';
import { type Client } from './support/http';
import { agentNode, API, createPack, edge, gateNode, startGraphWorld } from './support/workflow-graph';

describe('workflow versions', () => {
  let t: TestApp;
  let alice: Client;
  let bob: Client;
  let aliceAgent: number;
  let pdlcId: number;

  beforeAll(async () => {
    ({ t, alice, bob, aliceAgent, pdlcId } = await startGraphWorld());
  });
  afterAll(() => t.close());

  const graphV2 = () => ({
    nodes: [agentNode('research', aliceAgent, 'discover')],
    edges: [edge('start', 'research')],
  });
  const graphV3 = () => ({
    nodes: [agentNode('research', aliceAgent, 'discover'), gateNode('research-gate', 'discover')],
    edges: [edge('start', 'research'), edge('research', 'research-gate')],
  });

  test('each save keeps a version; list, view and restore one as a new version', async () => {
    const w = await createPack(alice, { name: 'Versioned', domain: 'pdlc' });
    // before any save: the current (empty) version is listed
    let list = await alice.get(`${API}/${w.id}/versions`);
    expect(list.status).toBe(200);
    expect(list.body.versions).toEqual([expect.objectContaining({ version: 1, node_count: 0, current: true })]);

    expect((await alice.put(`${API}/${w.id}/graph`, { ...graphV2(), version: 1 })).status).toBe(200);
    expect((await alice.put(`${API}/${w.id}/graph`, { ...graphV3(), version: 2 })).status).toBe(200);
    list = await alice.get(`${API}/${w.id}/versions`);
    expect(list.body.versions.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect(list.body.versions.map((v: { node_count: number }) => v.node_count)).toEqual([2, 1, 0]);
    expect(list.body.versions.map((v: { current: boolean }) => v.current)).toEqual([true, false, false]);
    expect(list.body.next_before).toBeNull();

    const v2 = await alice.get(`${API}/${w.id}/versions/2`);
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({ version: 2, current: false, node_count: 1, edges: graphV2().edges });
    expect(v2.body.nodes.map((n: { node_key: string }) => n.node_key)).toEqual(['research']);

    // a stale restore is refused like a stale save
    const stale = await alice.post(`${API}/${w.id}/versions/2/restore`, { version: 2 });
    expect(stale.status).toBe(409);
    const restored = await alice.post(`${API}/${w.id}/versions/2/restore`, { version: 3 });
    expect(restored.status).toBe(200);
    expect(restored.body.version).toBe(4);
    expect(restored.body.nodes.map((n: { node_key: string }) => n.node_key)).toEqual(['research']);
    expect((await alice.get(`${API}/${w.id}/graph`)).body.version).toBe(4);
    // history is only added to: version 3 is still there
    list = await alice.get(`${API}/${w.id}/versions`);
    expect(list.body.versions.map((v: { version: number }) => v.version)).toEqual([4, 3, 2, 1]);
    expect((await alice.get(`${API}/${w.id}/versions/3`)).body.node_count).toBe(2);
  });

  test('paging, unknown versions, bad input', async () => {
    const w = await createPack(alice, { name: 'Paged', domain: 'pdlc' });
    for (let v = 1; v <= 4; v++)
      expect((await alice.put(`${API}/${w.id}/graph`, { ...graphV2(), version: v })).status).toBe(200);
    const page1 = await alice.get(`${API}/${w.id}/versions?limit=2`);
    expect(page1.body.versions.map((v: { version: number }) => v.version)).toEqual([5, 4]);
    expect(page1.body.next_before).toBe(4);
    const page2 = await alice.get(`${API}/${w.id}/versions?limit=2&before=4`);
    expect(page2.body.versions.map((v: { version: number }) => v.version)).toEqual([3, 2]);
    expect((await alice.get(`${API}/${w.id}/versions?limit=101`)).status).toBe(400);
    expect((await alice.get(`${API}/${w.id}/versions?limit=0`)).status).toBe(400);
    const missing = await alice.get(`${API}/${w.id}/versions/99`);
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('The workflow "Paged" has no version 99.');
    expect((await alice.get(`${API}/${w.id}/versions/99999999999`)).status).toBe(404);
    expect((await alice.get(`${API}/${w.id}/versions/abc`)).status).toBe(400);
    expect((await alice.post(`${API}/${w.id}/versions/2/restore`, { version: 'x' })).status).toBe(400);
    expect((await alice.post(`${API}/${w.id}/versions/2/restore`, { other: 1 })).status).toBe(400);
  });

  test("a restore that no longer fits the workflow is a 400 and saves nothing; others' workflows are 404", async () => {
    const w = await createPack(alice, { name: 'Shrinking', domain: 'pdlc' });
    const withDesign = {
      nodes: [agentNode('research', aliceAgent, 'discover'), agentNode('shape', aliceAgent, 'design')],
      edges: [edge('start', 'research'), edge('research', 'shape')],
    };
    expect((await alice.put(`${API}/${w.id}/graph`, withDesign)).status).toBe(200);
    expect((await alice.put(`${API}/${w.id}/graph`, graphV2())).status).toBe(200);
    const stages = ['discover', 'develop', 'test', 'deploy', 'iterate'];
    expect((await alice.put(`${API}/${w.id}`, { stages })).status).toBe(200);
    const r = await alice.post(`${API}/${w.id}/versions/2/restore`, {});
    expect(r.status).toBe(400);
    expect((await alice.get(`${API}/${w.id}/graph`)).body.version).toBe(3);

    expect((await bob.get(`${API}/${w.id}/versions`)).status).toBe(404);
    expect((await bob.get(`${API}/${w.id}/versions/1`)).status).toBe(404);
    expect((await bob.post(`${API}/${w.id}/versions/1/restore`, {})).status).toBe(404);
    // a system workflow's versions can be read, not restored
    expect((await alice.get(`${API}/${pdlcId}/versions`)).status).toBe(200);
    expect((await alice.post(`${API}/${pdlcId}/versions/1/restore`, {})).status).toBe(403);
  });
});
