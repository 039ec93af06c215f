/** Workflow export and import: the exported document and importing it (rejected documents: workflow-import-rejects.spec.ts). */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Agent } from '../src/modules/agents/agent.entity';
import { Model } from '../src/modules/models/model.entity';
import { Skill } from '../src/modules/skills/skill.entity';
import { SecretBox } from '../src/platform/crypto/secret-box';
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client, newUser, type Res } from './support/http';

const API = '/studio/api/workflows';
const IMPORT = `${API}/import`;
const SECRET_KEY = 'sk-live-SUPERSECRET-0123456789';
const DOC_KEYS = ['agents', 'edges', 'format', 'models', 'nodes', 'pack', 'skills', 'version'];

type Doc = Record<string, any>;

const isProblem = (r: Res) => assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
function expectStatus(r: Res, status: number, what = '') {
  assert.equal(r.status, status, `${what} expected ${status}, got ${r.status}: ${r.text.slice(0, 600)}`);
  if (status >= 400) isProblem(r);
}

/** Every key used anywhere in a JSON value. */
function allKeys(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => allKeys(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      allKeys(v, out);
    }
  }
  return out;
}

const withoutSlug = (doc: Doc) => ({ ...doc, pack: { ...doc.pack, slug: undefined } });

describe('workflow export and import', () => {
  let t: TestApp;
  let ds: DataSource;
  let alice: Client;
  let bob: Client;
  let carol: Client;
  let aliceId: number;
  let bobId: number;
  let carolId: number;
  let pdlcId: number;
  let packId: number;
  let sealed: string;
  let systemAgentId: number;
  const ids: Record<string, number> = {};

  async function rowCounts() {
    const out: Record<string, number> = {};
    for (const table of ['workflows', 'workflow_nodes', 'workflow_edges', 'agents', 'skills', 'models']) {
      out[table] = Number((await ds.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n);
    }
    return out;
  }

  async function exportDoc(c: Client, id: number): Promise<Doc> {
    const r = await c.post(`${API}/${id}/export`, {});
    expectStatus(r, 200, 'export');
    return r.body;
  }

  beforeAll(async () => {
    t = await startApp();
    ds = t.created.app.get(DataSource);
    const admin = new Client(t.url);
    await admin.login(ADMIN.username, ADMIN.password);
    alice = await newUser(t.url, admin, 'alice');
    bob = await newUser(t.url, admin, 'bob');
    carol = await newUser(t.url, admin, 'carol');
    carolId = (await carol.get('/auth/me')).body.id;
    aliceId = (await alice.get('/auth/me')).body.id;
    bobId = (await bob.get('/auth/me')).body.id;

    pdlcId = (await alice.get(API)).body.find(
      (w: { slug: string; is_system: boolean }) => w.slug === 'pdlc' && w.is_system,
    ).id;
    const pdlcGraph = (await alice.get(`${API}/${pdlcId}/graph`)).body;
    systemAgentId = pdlcGraph.nodes.find((n: { node_key: string }) => n.node_key === 'design').agent_id;

    // Fixtures written straight to the tables (the models/skills/agents APIs are another module).
    sealed = new SecretBox('test-secret-not-for-production', 'model-api-key').seal(SECRET_KEY);
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
    packId = created.body.id;
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
  });
  afterAll(() => t.close());

  describe('export', () => {
    test('holds the pack and everything the graph references, as document-local refs', async () => {
      const doc = await exportDoc(alice, packId);
      assert.deepEqual(Object.keys(doc).sort(), DOC_KEYS);
      assert.equal(doc.format, 'service-workflow-pack');
      assert.equal(doc.version, 1);
      assert.deepEqual(doc.pack, {
        name: 'Writing pack',
        slug: 'writing-pack',
        description: 'essays',
        domain: 'writing',
        stages: ['research', 'draft', 'edit'],
      });
      assert.deepEqual(doc.models, [
        {
          ref: 'model-1',
          label: 'Local llama',
          provider: 'custom',
          model_id: 'llama3.1:8b',
          api_base: 'http://localhost:11434/v1',
          temperature: 0.7,
          max_tokens: 2048,
        },
        {
          ref: 'model-2',
          label: 'GPT',
          provider: 'vendor_a',
          model_id: 'gpt-4o-mini',
          api_base: null,
          temperature: null,
          max_tokens: null,
        },
      ]);
      assert.deepEqual(
        doc.skills.map((s: Doc) => [s.ref, s.name]),
        [
          ['skill-1', 'Writing'],
          ['skill-2', 'Research'],
          ['skill-3', 'PDLC: Solution design'],
        ],
      );
      assert.deepEqual(doc.skills[1], {
        ref: 'skill-2',
        name: 'Research',
        description: 'find sources',
        prompt_md: '# Research\nCite everything.',
        tool_allowlist: ['read_file', 'search_files'],
        artifact_hint: 'docs/sources.md',
      });
      assert.deepEqual(doc.agents[0], {
        ref: 'agent-1',
        name: 'Researcher',
        role: 'analyst',
        system_prompt: 'You research.',
        model_ref: 'model-1',
        skill_refs: ['skill-1', 'skill-2'],
        tool_allowlist: ['list_files'],
        max_iterations: 5,
      });
      assert.deepEqual(
        doc.agents.map((a: Doc) => [a.ref, a.name, a.model_ref]),
        [
          ['agent-1', 'Researcher', 'model-1'],
          ['agent-2', 'Writer', null],
          ['agent-3', 'PDLC Solution Designer', null],
          ['agent-4', 'Editor', 'model-2'],
        ],
      );
      const system = doc.agents[2];
      assert.deepEqual(Object.keys(system).sort(), [
        'max_iterations',
        'model_ref',
        'name',
        'ref',
        'role',
        'skill_refs',
        'system_prompt',
        'tool_allowlist',
      ]);
      assert.ok(system.system_prompt.length > 100, 'system agents are exported as full definitions');
      assert.deepEqual(
        doc.nodes.map((n: Doc) => [n.node_key, n.agent_ref]),
        [
          ['research', 'agent-1'],
          ['check', null],
          ['draft', 'agent-2'],
          ['review', 'agent-3'],
          ['draft-gate', null],
          ['edit', 'agent-4'],
          ['again', 'agent-1'],
        ],
      );
      assert.deepEqual(doc.nodes[0], {
        node_key: 'research',
        type: 'agent',
        agent_ref: 'agent-1',
        stage_label: 'research',
        config: { artifact: 'docs/sources.md', tone: { formal: true } },
        position_x: 0,
        position_y: 0,
      });
      assert.equal(doc.nodes[2].position_y, -50.5);
      assert.deepEqual(doc.edges[2], { from_node: 'check', to_node: 'draft', condition: 'exists("docs/sources.md")' });
      assert.equal(doc.edges.length, 8);
    });

    test('carries no secret, owner, timestamp or database id', async () => {
      const r = await alice.post(`${API}/${packId}/export`, {});
      expectStatus(r, 200);
      assert.ok(!r.text.includes(SECRET_KEY), 'no API key');
      assert.ok(!r.text.includes(sealed), 'no sealed API key');
      assert.ok(!r.text.includes('SUPERSECRET'));
      const keys = allKeys(r.body);
      for (const k of [
        'api_key',
        'api_key_sealed',
        'has_api_key',
        'id',
        'owner_id',
        'is_system',
        'created_at',
        'updated_at',
        'agent_id',
        'skill_ids',
        'workflow_id',
      ]) {
        assert.ok(!keys.has(k), `no "${k}" in the document`);
      }
      assert.ok(!r.text.includes(`"Unused"`), 'unreferenced records are not exported');
    });

    test('is deterministic', async () => {
      assert.deepEqual(await exportDoc(alice, packId), await exportDoc(alice, packId));
    });

    test('the system pack exports with its system agents and skills as plain definitions', async () => {
      const doc = await exportDoc(bob, pdlcId);
      assert.equal(doc.pack.slug, 'pdlc');
      assert.equal(doc.agents.length, 6);
      assert.equal(doc.skills.length, 6);
      assert.deepEqual(doc.models, []);
      assert.deepEqual(
        doc.nodes.filter((n: Doc) => n.type === 'agent').map((n: Doc) => n.agent_ref),
        ['agent-1', 'agent-2', 'agent-3', 'agent-4', 'agent-5', 'agent-6'],
      );
    });
  });

  describe('import', () => {
    test('export → import → export gives an equal document apart from the slug; records belong to the importer', async () => {
      // imported by another user, so nothing is reused: every record is a new one of the importer
      const doc = await exportDoc(alice, packId);
      const before = await rowCounts();
      const r = await carol.post(IMPORT, doc);
      expectStatus(r, 201);
      assert.deepEqual(Object.keys(r.body).sort(), ['created', 'reused', 'warnings', 'workflow']);
      assert.deepEqual(r.body.reused, { models: [], skills: [], agents: [] });
      const wf = r.body.workflow;
      assert.equal(wf.owner_id, carolId);
      assert.equal(wf.is_system, false);
      assert.equal(wf.version, 1);
      assert.equal(wf.name, 'Writing pack');
      assert.equal(wf.slug, 'writing-pack');
      assert.equal(r.body.created.models.length, 2);
      assert.equal(r.body.created.skills.length, 3);
      assert.equal(r.body.created.agents.length, 4);
      const after = await rowCounts();
      assert.deepEqual(after, {
        workflows: before.workflows + 1,
        workflow_nodes: before.workflow_nodes + 7,
        workflow_edges: before.workflow_edges + 8,
        agents: before.agents + 4,
        skills: before.skills + 3,
        models: before.models + 2,
      });
      const newAgents = await ds.getRepository(Agent).findBy(r.body.created.agents.map((id: number) => ({ id })));
      assert.ok(newAgents.every((a) => a.owner_id === carolId && !a.is_system));
      const newAgentIds = new Set(r.body.created.agents);
      const graph = (await carol.get(`${API}/${wf.id}/graph`)).body;
      assert.ok(
        graph.nodes.filter((n: Doc) => n.agent_id !== null).every((n: Doc) => newAgentIds.has(n.agent_id)),
        'references remapped',
      );
      const keys = await ds.query('SELECT api_key_sealed FROM models WHERE id = ANY($1::int[])', [
        r.body.created.models,
      ]);
      assert.ok(keys.every((k: { api_key_sealed: string | null }) => k.api_key_sealed === null));

      const again = await exportDoc(carol, wf.id);
      assert.deepEqual(withoutSlug(again), withoutSlug(doc));
    });

    test('importing a document again reuses the identical records instead of copying them (issue 13 item 7)', async () => {
      const doc = await exportDoc(alice, packId);
      // the first import copies only what alice does not own (the system agent and skill her pack uses)
      const first = await alice.post(IMPORT, doc);
      expectStatus(first, 201);
      assert.deepEqual(first.body.created.models, []);
      assert.deepEqual([first.body.created.skills.length, first.body.created.agents.length], [1, 1]);
      assert.equal(
        (await alice.get(`${API}/${first.body.workflow.id}`)).body.slug,
        'writing-pack-2',
        'slug made unique for the importer',
      );
      const before = await rowCounts();
      const ids: number[] = [];
      for (let i = 0; i < 2; i++) {
        const r = await alice.post(IMPORT, doc);
        expectStatus(r, 201);
        assert.deepEqual(
          r.body.created,
          { models: [], skills: [], agents: [] },
          'alice now has every record of the document',
        );
        assert.equal(r.body.reused.models.length, 2);
        assert.equal(r.body.reused.skills.length, 3);
        assert.equal(r.body.reused.agents.length, 4);
        ids.push(r.body.workflow.id);
      }
      const after = await rowCounts();
      assert.equal(after.workflows, before.workflows + 2);
      assert.deepEqual([after.models, after.skills, after.agents], [before.models, before.skills, before.agents]);
      // the imported graphs point at the same agents as the first import's
      const agentsOf = async (id: number) =>
        (await alice.get(`${API}/${id}/graph`)).body.nodes.map((n: Doc) => n.agent_id).sort();
      const firstAgents = await agentsOf(first.body.workflow.id);
      for (const id of ids) assert.deepEqual(await agentsOf(id), firstAgents);

      // a record that differs in any field is created; one identical copy inside a document is created once
      const changed = structuredClone(doc);
      changed.models[0].temperature = 0.123;
      changed.models.push({ ...structuredClone(changed.models[0]), ref: 'twin' });
      const r = await alice.post(IMPORT, changed);
      expectStatus(r, 201);
      assert.equal(r.body.created.models.length, 1, 'the changed model (and its twin) once');
      assert.equal(r.body.reused.models.length, 1);
      const agentsUsingIt = changed.agents.filter((a: Doc) => a.model_ref === changed.models[0].ref).length;
      assert.equal(
        r.body.created.agents.length,
        agentsUsingIt,
        'agents on the new model are new; the others are reused',
      );
    });

    test('another user imports a shared document into their own records', async () => {
      const doc = await exportDoc(alice, packId);
      const r = await bob.post(IMPORT, doc);
      expectStatus(r, 201);
      assert.equal(r.body.workflow.owner_id, bobId);
      assert.equal(r.body.workflow.slug, 'writing-pack', 'slugs are per owner');
      const mine = await exportDoc(bob, r.body.workflow.id);
      assert.deepEqual(withoutSlug(mine), withoutSlug(doc));
      expectStatus(await alice.get(`${API}/${r.body.workflow.id}`), 404, "alice cannot see bob's import");
    });

    test('the system pack round-trips through export and import as user-owned copies', async () => {
      const doc = await exportDoc(bob, pdlcId);
      const r = await bob.post(IMPORT, doc);
      expectStatus(r, 201);
      assert.equal(r.body.workflow.slug, 'pdlc-2', "a derived slug avoids the system pack's");
      // bob already owns a copy of one of them (alice's shared pack used it): that one is reused
      const copies = await ds
        .getRepository(Agent)
        .findBy([...r.body.created.agents, ...r.body.reused.agents].map((id: number) => ({ id })));
      assert.equal(copies.length, 6);
      assert.ok(copies.every((a) => a.owner_id === bobId && !a.is_system));
      assert.deepEqual(withoutSlug(await exportDoc(bob, r.body.workflow.id)), withoutSlug(doc));
    });

    test('a document over 1 MiB (the general limit) but under 8 MiB imports', async () => {
      const doc = await exportDoc(alice, packId);
      for (let i = 0; i < 20; i++) {
        doc.skills.push({
          ref: `big-${i}`,
          name: `Big ${i}`,
          description: '',
          prompt_md: 'x'.repeat(65536),
          tool_allowlist: [],
          artifact_hint: '',
        });
      }
      assert.ok(JSON.stringify(doc).length > 1024 * 1024);
      const r = await alice.post(IMPORT, doc);
      expectStatus(r, 201);
      assert.equal(
        r.body.created.skills.length,
        20,
        'unreferenced definitions are created too (the 3 identical ones are reused)',
      );
      assert.equal(r.body.reused.skills.length, 3);
    });

    test('over 8 MiB is 413', async () => {
      const r = await alice.post(
        IMPORT,
        JSON.stringify({ format: 'service-workflow-pack', pad: 'x'.repeat(8 * 1024 * 1024 + 10) }),
      );
      expectStatus(r, 413);
    });
  });
});
