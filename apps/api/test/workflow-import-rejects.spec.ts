/** Workflow import refuses bad documents and then creates nothing. */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Agent } from '../src/modules/agents/agent.entity';
import { Model } from '../src/modules/models/model.entity';
import { Skill } from '../src/modules/skills/skill.entity';
import { readPackDocument } from '../src/modules/workflows/pack-document';
import { SecretBox } from '../src/platform/crypto/secret-box';
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client, newUser, type Res } from './support/http';

const API = '/studio/api/workflows';
const IMPORT = `${API}/import`;
const SECRET_KEY = 'sk-live-SUPERSECRET-0123456789';
type Doc = Record<string, any>;

const isProblem = (r: Res) => assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
const fields = (r: Res) => (r.body.errors ?? []).map((e: { field: string }) => e.field);
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

function expectStatus(r: Res, status: number, what = '') {
  assert.equal(r.status, status, `${what} expected ${status}, got ${r.status}: ${r.text.slice(0, 600)}`);
  if (status >= 400) isProblem(r);
}

/** Every key used anywhere in a JSON value. */

describe('workflow export and import', () => {
  let t: TestApp;
  let ds: DataSource;
  let alice: Client;
  let aliceId: number;
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
    aliceId = (await alice.get('/auth/me')).body.id;

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

  describe('import rejects bad documents and creates nothing', () => {
    let base: Doc;
    beforeAll(async () => {
      base = await exportDoc(alice, packId);
    });

    const mutate = (f: (d: Doc) => void) => () => {
      const d = clone(base);
      f(d);
      return d;
    };

    test('each problem is a 400 naming the field, with nothing created', async () => {
      const cases: Array<[string, () => unknown, string]> = [
        ['wrong format', mutate((d) => (d.format = 'flowise')), 'format'],
        ['wrong version', mutate((d) => (d.version = 2)), 'version'],
        ['version as a string', mutate((d) => (d.version = '1')), 'version'],
        ['unknown top-level key', mutate((d) => (d.owner_id = 1)), 'owner_id'],
        ['unknown pack key', mutate((d) => (d.pack.id = 3)), 'pack.id'],
        ['unknown agent key', mutate((d) => (d.agents[0].is_system = true)), 'agents[0].is_system'],
        ['an api_key in a model', mutate((d) => (d.models[0].api_key = 'sk-smuggled')), 'models[0].api_key'],
        ['unknown node key', mutate((d) => (d.nodes[0].agent_id = 1)), 'nodes[0].agent_id'],
        ['unknown edge key', mutate((d) => (d.edges[0].label = 'x')), 'edges[0].label'],
        ['missing pack', mutate((d) => delete d.pack), 'pack'],
        ['missing agents', mutate((d) => delete d.agents), 'agents'],
        ['missing nodes', mutate((d) => delete d.nodes), 'nodes'],
        ['empty stages', mutate((d) => (d.pack.stages = [])), 'pack.stages'],
        ['duplicate stage', mutate((d) => d.pack.stages.push('draft')), 'pack.stages[3]'],
        ['bad domain', mutate((d) => (d.pack.domain = 'Not A Domain')), 'pack.domain'],
        ['bad slug', mutate((d) => (d.pack.slug = 'UPPER')), 'pack.slug'],
        ['dangling node agent_ref', mutate((d) => (d.nodes[0].agent_ref = 'agent-99')), 'nodes[0].agent_ref'],
        ['agent node without agent_ref', mutate((d) => (d.nodes[0].agent_ref = null)), 'nodes[0].agent_ref'],
        ['dangling model_ref', mutate((d) => (d.agents[0].model_ref = 'model-99')), 'agents[0].model_ref'],
        ['dangling skill_ref', mutate((d) => (d.agents[0].skill_refs = ['skill-99'])), 'agents[0].skill_refs[0]'],
        ['duplicate agent ref', mutate((d) => (d.agents[1].ref = 'agent-1')), 'agents[1].ref'],
        ['bad stage in the graph', mutate((d) => (d.nodes[0].stage_label = 'publish')), 'nodes[0].stage_label'],
        ['dangling edge', mutate((d) => (d.edges[0].to_node = 'ghost')), 'edges[0].to_node'],
        ['bad condition', mutate((d) => (d.edges[2].condition = 'exists(')), 'edges[2].condition'],
        ['start as a node', mutate((d) => (d.nodes[1].node_key = 'start')), 'nodes[1].node_key'],
        ['custom model without api_base', mutate((d) => (d.models[0].api_base = null)), 'models[0].api_base'],
        [
          'cloud metadata api_base',
          mutate((d) => (d.models[0].api_base = 'http://169.254.169.254/latest/meta-data')),
          'models[0].api_base',
        ],
        ['non-http api_base', mutate((d) => (d.models[0].api_base = 'file:///etc/passwd')), 'models[0].api_base'],
        ['bad provider', mutate((d) => (d.models[1].provider = 'openai')), 'models[1].provider'],
        ['temperature over 2', mutate((d) => (d.models[0].temperature = 2.5)), 'models[0].temperature'],
        ['max_tokens over 200000', mutate((d) => (d.models[0].max_tokens = 200001)), 'models[0].max_tokens'],
        ['unknown tool', mutate((d) => (d.skills[0].tool_allowlist = ['rm_rf'])), 'skills[0].tool_allowlist[0]'],
        ['max_iterations over 50', mutate((d) => (d.agents[0].max_iterations = 51)), 'agents[0].max_iterations'],
        ['blank agent name', mutate((d) => (d.agents[0].name = '  ')), 'agents[0].name'],
        ['name over 200 characters', mutate((d) => (d.agents[0].name = 'n'.repeat(201))), 'agents[0].name'],
        ['prompt over 64 KiB', mutate((d) => (d.skills[0].prompt_md = 'p'.repeat(65537))), 'skills[0].prompt_md'],
        [
          '2,001 models',
          mutate(
            (d) =>
              (d.models = Array.from({ length: 2001 }, (_, i) => ({
                ref: `m${i}`,
                label: 'x',
                provider: 'vendor_a',
                model_id: 'x',
              }))),
          ),
          'models',
        ],
        [
          '65 skills on one agent',
          mutate((d) => (d.agents[0].skill_refs = Array.from({ length: 65 }, () => 'skill-1'))),
          'agents[0].skill_refs',
        ],
        [
          'config with an absolute artifact',
          mutate((d) => (d.nodes[0].config = { artifact: '/etc/passwd' })),
          'nodes[0].config.artifact',
        ],
      ];
      const before = await rowCounts();
      for (const [what, make, field] of cases) {
        const r = await alice.post(IMPORT, make());
        expectStatus(r, 400, what);
        assert.ok(fields(r).includes(field), `${what}: ${JSON.stringify(r.body.errors).slice(0, 400)}`);
      }
      assert.deepEqual(await rowCounts(), before);
    });

    test('__proto__ and constructor keys are refused and pollute nothing', async () => {
      const before = await rowCounts();
      const text = JSON.stringify(base);
      const variants: Array<[string, string, string]> = [
        ['top level', text.replace('{"format"', '{"__proto__":{"polluted":true},"format"'), '__proto__'],
        [
          'inside an agent',
          text.replace('{"ref":"agent-1"', '{"__proto__":{"polluted":true},"ref":"agent-1"'),
          'agents[0].__proto__',
        ],
        [
          'constructor in the pack',
          text.replace('"pack":{', '"pack":{"constructor":{"prototype":{"polluted":true}},'),
          'pack.constructor',
        ],
        [
          'inside a node config',
          text.replace(
            '"config":{"artifact":"docs/draft.md"',
            '"config":{"__proto__":{"polluted":true},"artifact":"docs/draft.md"',
          ),
          'nodes[2].config',
        ],
      ];
      for (const [what, body, field] of variants) {
        assert.notEqual(body, text, `${what}: the fixture was changed`);
        const r = await alice.post(IMPORT, body);
        expectStatus(r, 400, what);
        assert.ok(fields(r).includes(field), `${what}: ${JSON.stringify(r.body.errors)}`);
        assert.equal(({} as Record<string, unknown>).polluted, undefined, `${what}: Object.prototype is clean`);
      }
      assert.deepEqual(await rowCounts(), before);
    });

    test('a failure while writing rolls everything back', async () => {
      await ds.query(`
        CREATE FUNCTION test_refuse_workflow() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.name = 'Explodes on insert' THEN RAISE EXCEPTION 'refused by test trigger'; END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER test_refuse_workflow BEFORE INSERT ON workflows FOR EACH ROW EXECUTE FUNCTION test_refuse_workflow();
      `);
      try {
        const doc = clone(base);
        doc.pack.name = 'Explodes on insert';
        doc.models[0].label = 'Only in this document'; // so new records are written before the failure
        const before = await rowCounts();
        const r = await alice.post(IMPORT, doc);
        expectStatus(r, 500);
        assert.doesNotMatch(r.text, /refused by test trigger|at .*\.js/);
        assert.deepEqual(
          await rowCounts(),
          before,
          'models, skills and agents inserted before the failure are rolled back',
        );
      } finally {
        await ds.query('DROP TRIGGER test_refuse_workflow ON workflows; DROP FUNCTION test_refuse_workflow();');
      }
    });

    test('MODEL_HOSTS=public refuses private and loopback model hosts; any allows them', () => {
      const doc = clone(base);
      assert.equal(readPackDocument(doc, { hostMode: 'any' }).errors.length, 0);
      const pub = readPackDocument(doc, { hostMode: 'public' });
      assert.equal(pub.plan, null);
      assert.deepEqual(
        pub.errors.map((e) => e.field),
        ['models[0].api_base'],
      );
      doc.models[0].api_base = 'http://10.0.0.5:8000/v1';
      assert.deepEqual(
        readPackDocument(doc, { hostMode: 'public' }).errors.map((e) => e.field),
        ['models[0].api_base'],
      );
      doc.models[0].api_base = 'https://api.example.com/v1';
      assert.equal(readPackDocument(doc, { hostMode: 'public' }).errors.length, 0);
    });
  });
});
