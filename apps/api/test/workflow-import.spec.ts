/** Workflow import: importing an exported document (the document: workflow-export.spec.ts; rejected documents: workflow-import-rejects.spec.ts). */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { Agent } from '../src/modules/agents/agent.entity';
import { type TestApp } from './support/app';
import { type Client } from './support/http';
import { countRows } from './support/workflow-graph';
import { API, type Doc, exportDoc, expectStatus, IMPORT, startPackWorld } from './support/workflow-pack';

const withoutSlug = (doc: Doc) => ({ ...doc, pack: { ...doc.pack, slug: undefined } });

describe('workflow export and import', () => {
  let t: TestApp;
  let ds: DataSource;
  let alice: Client;
  let bob: Client;
  let carol: Client;
  let bobId: number;
  let carolId: number;
  let pdlcId: number;
  let packId: number;
  const rowCounts = () => countRows(ds);

  beforeAll(async () => {
    let others: Client[];
    ({ t, ds, alice, others, pdlcId, packId } = await startPackWorld('bob', 'carol'));
    [bob, carol] = others;
    bobId = (await bob.get('/auth/me')).body.id;
    carolId = (await carol.get('/auth/me')).body.id;
  });
  afterAll(() => t.close());

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
