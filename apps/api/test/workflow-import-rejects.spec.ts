/** Workflow import refuses bad documents and then creates nothing. */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { readPackDocument } from '../src/modules/workflows/pack-document';
import { type TestApp } from './support/app';
import { type Client, type Res } from './support/http';
import { countRows } from './support/workflow-graph';
import { type Doc, exportDoc, expectStatus, IMPORT, startPackWorld } from './support/workflow-pack';

const fields = (r: Res) => (r.body.errors ?? []).map((e: { field: string }) => e.field);
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

describe('workflow export and import', () => {
  let t: TestApp;
  let ds: DataSource;
  let alice: Client;
  let packId: number;
  const rowCounts = () => countRows(ds);

  beforeAll(async () => {
    ({ t, ds, alice, packId } = await startPackWorld());
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
