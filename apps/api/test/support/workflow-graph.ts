/** Shared by the graph API specs (workflows-graph*.spec.ts): node/edge builders and a started app with two users. */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Agent } from '../../src/modules/agents/agent.entity';
import { ADMIN, startApp, type TestApp } from './app';
import { Client, newUser, type Res } from './http';

export const API = '/studio/api/workflows';
export const PDLC = ['discover', 'design', 'develop', 'test', 'deploy', 'iterate'];
export type Node = {
  node_key: string;
  type: 'agent' | 'gate' | 'branch';
  agent_id: number | null;
  stage_label: string | null;
  config: Record<string, unknown>;
  position_x: number;
  position_y: number;
};
export type Edge = { from_node: string; to_node: string; condition: string | null };

const isProblem = (r: Res) => assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
export const fields = (r: Res) => (r.body.errors ?? []).map((e: { field: string }) => e.field);

export function expectStatus(r: Res, status: number, what = '') {
  assert.equal(r.status, status, `${what} expected ${status}, got ${r.status}: ${r.text.slice(0, 500)}`);
  if (status >= 400) isProblem(r);
}

export const agentNode = (key: string, agentId: number, stage: string, extra: Partial<Node> = {}): Node => ({
  node_key: key,
  type: 'agent',
  agent_id: agentId,
  stage_label: stage,
  config: { artifact: `docs/${key}.md` },
  position_x: 0,
  position_y: 0,
  ...extra,
});
export const gateNode = (key: string, stage: string): Node => ({
  node_key: key,
  type: 'gate',
  agent_id: null,
  stage_label: stage,
  config: {},
  position_x: 100,
  position_y: 50,
});
export const edge = (from: string, to: string, condition: string | null = null): Edge => ({
  from_node: from,
  to_node: to,
  condition,
});

export async function createPack(c: Client, body: Record<string, unknown>) {
  const r = await c.post(API, body);
  expectStatus(r, 201, 'create');
  return r.body;
}

/** Row counts of the tables a workflow write touches, to show that a refused write changed nothing. */
export async function countRows(ds: DataSource) {
  const out: Record<string, number> = {};
  for (const table of ['workflows', 'workflow_nodes', 'workflow_edges', 'agents', 'skills', 'models']) {
    out[table] = Number((await ds.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n);
  }
  return out;
}

export interface GraphWorld {
  t: TestApp;
  ds: DataSource;
  alice: Client;
  bob: Client;
  aliceId: number;
  bobId: number;
  aliceAgent: number;
  pdlcId: number;
  systemAgentIds: number[];
}

/** Starts the app with alice and bob, one agent each, and finds the seeded system PDLC pack and its agents. */
export async function startGraphWorld(): Promise<GraphWorld> {
  const t = await startApp();
  const ds = t.created.app.get(DataSource);
  async function makeAgent(ownerId: number | null, name: string): Promise<number> {
    const repo = ds.getRepository(Agent);
    const row = await repo.save(repo.create({ owner_id: ownerId, is_system: ownerId === null, name, role: 'tester' }));
    return row.id;
  }
  const admin = new Client(t.url);
  await admin.login(ADMIN.username, ADMIN.password);
  const alice = await newUser(t.url, admin, 'alice');
  const bob = await newUser(t.url, admin, 'bob');
  const aliceId = (await alice.get('/auth/me')).body.id;
  const bobId = (await bob.get('/auth/me')).body.id;
  const aliceAgent = await makeAgent(aliceId, 'Alice agent');
  await makeAgent(bobId, 'Bob agent');
  const list = await alice.get(API);
  const pdlc = list.body.find((w: { slug: string; is_system: boolean }) => w.slug === 'pdlc' && w.is_system);
  assert.ok(pdlc, 'the system PDLC pack is seeded');
  const pdlcId = pdlc.id;
  const systemAgentIds = (await alice.get(`${API}/${pdlcId}`)).body.nodes
    .filter((n: Node) => n.type === 'agent')
    .map((n: Node) => n.agent_id);
  return { t, ds, alice, bob, aliceId, bobId, aliceAgent, pdlcId, systemAgentIds };
}
