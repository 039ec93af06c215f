/** Workflow export: the exported document (importing it: workflow-import.spec.ts; rejected documents: workflow-import-rejects.spec.ts). */
import assert from 'node:assert/strict';
import { type TestApp } from './support/app';
import { type Client } from './support/http';
import { API, type Doc, exportDoc, expectStatus, SECRET_KEY, startPackWorld } from './support/workflow-pack';

const DOC_KEYS = ['agents', 'edges', 'format', 'models', 'nodes', 'pack', 'skills', 'version'];

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

describe('workflow export and import', () => {
  let t: TestApp;
  let alice: Client;
  let bob: Client;
  let pdlcId: number;
  let packId: number;
  let sealed: string;

  beforeAll(async () => {
    let others: Client[];
    ({ t, alice, others, pdlcId, packId, sealed } = await startPackWorld('bob'));
    [bob] = others;
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
});
