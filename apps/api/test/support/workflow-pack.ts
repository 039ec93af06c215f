/**
 * Shared by the workflow export/import specs (workflow-export.spec.ts, workflow-import*.spec.ts): a started app
 * where alice owns a "Writing pack" whose graph references her models, skills and agents and one system agent.
 */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Agent } from '../../src/modules/agents/agent.entity';
import { Model } from '../../src/modules/models/model.entity';
import { Skill } from '../../src/modules/skills/skill.entity';
import { SecretBox } from '../../src/platform/crypto/secret-box';
import { ADMIN, startApp, type TestApp } from './app';
import { Client, newUser, type Res } from './http';

export const API = '/studio/api/workflows';
export const IMPORT = `${API}/import`;
export const SECRET_KEY = 'sk-live-SUPERSECRET-0123456789';

export type Doc = Record<string, any>;

const isProblem = (r: Res) => assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
export function expectStatus(r: Res, status: number, what = '') {
  assert.equal(r.status, status, `${what} expected ${status}, got ${r.status}: ${r.text.slice(0, 600)}`);
  if (status >= 400) isProblem(r);
}

export async function exportDoc(c: Client, id: number): Promise<Doc> {
  const r = await c.post(`${API}/${id}/export`, {});
  expectStatus(r, 200, 'export');
  return r.body;
}

export interface PackWorld {
  t: TestApp;
  ds: DataSource;
  alice: Client;
  aliceId: number;
  /** Clients of the users named in startPackWorld(...others), in that order. */
  others: Client[];
  /** The seeded system PDLC pack. */
  pdlcId: number;
  /** alice's "Writing pack". */
  packId: number;
  /** SECRET_KEY as sealed in alice's models. */
  sealed: string;
  /** A system agent (the PDLC "design" node's), used by the pack's "review" node. */
  systemAgentId: number;
  /** alice's records by name: models local/openai/unused, skills research/writing, agents researcher/writer/editor. */
  ids: Record<string, number>;
}

/** Starts the app with alice (and users named in `others`) and builds alice's "Writing pack". */
export async function startPackWorld(...others: string[]): Promise<PackWorld> {
  const t = await startApp();
  const ds = t.created.app.get(DataSource);
  const admin = new Client(t.url);
  await admin.login(ADMIN.username, ADMIN.password);
  const alice = await newUser(t.url, admin, 'alice');
  const otherClients: Client[] = [];
  for (const name of others) otherClients.push(await newUser(t.url, admin, name));
  const aliceId: number = (await alice.get('/auth/me')).body.id;
  const ids: Record<string, number> = {};

  const pdlcId = (await alice.get(API)).body.find(
    (w: { slug: string; is_system: boolean }) => w.slug === 'pdlc' && w.is_system,
  ).id;
  const pdlcGraph = (await alice.get(`${API}/${pdlcId}/graph`)).body;
  const systemAgentId = pdlcGraph.nodes.find((n: { node_key: string }) => n.node_key === 'design').agent_id;

  // Fixtures written straight to the tables (the models/skills/agents APIs are another module).
  const sealed = new SecretBox('test-secret-not-for-production', 'model-api-key').seal(SECRET_KEY);
  const models = ds.getRepository(Model);
  const skills = ds.getRepository(Skill);
  const agents = ds.getRepository(Agent);
  const own = { owner_id: aliceId, is_system: false };
  ids.local = (
    await models.save(
      models.create({
        ...own,
        label: 'Local llama',
        provider: 'custom',
        model_id: 'llama3.1:8b',
        api_base: 'http://localhost:11434/v1',
        temperature: 0.7,
        max_tokens: 2048,
        api_key_sealed: sealed,
      }),
    )
  ).id;
  ids.openai = (
    await models.save(
      models.create({
        ...own,
        label: 'GPT',
        provider: 'vendor_a',
        model_id: 'gpt-4o-mini',
        api_base: null,
        temperature: null,
        max_tokens: null,
      }),
    )
  ).id;
  ids.unused = (
    await models.save(
      models.create({ ...own, label: 'Unused', provider: 'vendor_b', model_id: 'claude', api_key_sealed: sealed }),
    )
  ).id;
  ids.research = (
    await skills.save(
      skills.create({
        ...own,
        name: 'Research',
        description: 'find sources',
        prompt_md: '# Research\nCite everything.',
        tool_allowlist: ['read_file', 'search_files'],
        artifact_hint: 'docs/sources.md',
      }),
    )
  ).id;
  ids.writing = (
    await skills.save(
      skills.create({ ...own, name: 'Writing', prompt_md: 'Write plainly.', tool_allowlist: ['write_file'] }),
    )
  ).id;
  ids.researcher = (
    await agents.save(
      agents.create({
        ...own,
        name: 'Researcher',
        role: 'analyst',
        system_prompt: 'You research.',
        model_id: ids.local,
        skill_ids: [ids.writing, ids.research],
        tool_allowlist: ['list_files'],
        max_iterations: 5,
      }),
    )
  ).id;
  ids.writer = (
    await agents.save(
      agents.create({
        ...own,
        name: 'Writer',
        role: 'writer',
        system_prompt: 'You write.',
        model_id: null,
        skill_ids: [ids.writing],
      }),
    )
  ).id;
  ids.editor = (
    await agents.save(
      agents.create({
        ...own,
        name: 'Editor',
        model_id: ids.openai,
        skill_ids: [],
        tool_allowlist: ['read_file', 'edit_file'],
        max_iterations: 50,
      }),
    )
  ).id;

  const created = await alice.post(API, {
    name: 'Writing pack',
    domain: 'writing',
    description: 'essays',
    stages: ['research', 'draft', 'edit'],
  });
  expectStatus(created, 201);
  const packId = created.body.id;
  const graph = {
    nodes: [
      {
        node_key: 'research',
        type: 'agent',
        agent_id: ids.researcher,
        stage_label: 'research',
        config: { artifact: 'docs/sources.md', tone: { formal: true } },
        position_x: 0,
        position_y: 0,
      },
      {
        node_key: 'check',
        type: 'branch',
        agent_id: null,
        stage_label: 'research',
        config: {},
        position_x: 200,
        position_y: 0,
      },
      {
        node_key: 'draft',
        type: 'agent',
        agent_id: ids.writer,
        stage_label: 'draft',
        config: { artifact: 'docs/draft.md' },
        position_x: 400,
        position_y: -50.5,
      },
      {
        node_key: 'review',
        type: 'agent',
        agent_id: systemAgentId,
        stage_label: 'draft',
        config: {},
        position_x: 400,
        position_y: 50,
      },
      {
        node_key: 'draft-gate',
        type: 'gate',
        agent_id: null,
        stage_label: 'draft',
        config: {},
        position_x: 600,
        position_y: 0,
      },
      {
        node_key: 'edit',
        type: 'agent',
        agent_id: ids.editor,
        stage_label: 'edit',
        config: { artifact: 'docs/final.md' },
        position_x: 800,
        position_y: 0,
      },
      {
        node_key: 'again',
        type: 'agent',
        agent_id: ids.researcher,
        stage_label: 'edit',
        config: {},
        position_x: 800,
        position_y: 120,
      },
    ],
    edges: [
      { from_node: 'start', to_node: 'research', condition: null },
      { from_node: 'research', to_node: 'check', condition: null },
      { from_node: 'check', to_node: 'draft', condition: 'exists("docs/sources.md")' },
      { from_node: 'check', to_node: 'review', condition: null },
      { from_node: 'draft', to_node: 'draft-gate', condition: null },
      { from_node: 'review', to_node: 'draft-gate', condition: null },
      { from_node: 'draft-gate', to_node: 'edit', condition: null },
      { from_node: 'edit', to_node: 'again', condition: 'contains(reply, "again")' },
    ],
  };
  expectStatus(await alice.put(`${API}/${packId}/graph`, graph), 200, 'fixture graph');

  return { t, ds, alice, aliceId, others: otherClients, pdlcId, packId, sealed, systemAgentId, ids };
}
