/**
 * /studio/api/agents: deletes referenced by workflow nodes, concurrent deletes of references, ordering,
 * malformed ids and AgentsService.resolveForRuntime (CRUD, validation, IDOR, system records: agents.spec.ts).
 */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { AgentsService } from '../src/modules/agents/agents.service';
import type { AuthUser } from '../src/modules/auth/user.entity';
import { type TestApp } from './support/app';
import { Client } from './support/http';
import { expectStatus, startWithTwoUsers } from './support/record-api';

const API = '/studio/api/agents';
const KEY = 'sk-agent-test-secret-key-5555';

describe('agents', () => {
  let t: TestApp;
  let ds: DataSource;
  let a: Client; // the seeded admin
  let b: Client;
  let userA: AuthUser;
  let userB: AuthUser;

  beforeAll(async () => {
    ({ t, ds, a, b } = await startWithTwoUsers('bob-agents'));
    userA = (await a.get('/auth/me')).body;
    userB = (await b.get('/auth/me')).body;
  });
  afterAll(() => t.close());

  const model = async (c: Client, extra: Record<string, unknown> = {}) =>
    (await c.post('/studio/api/models', { label: 'M', provider: 'vendor_a', model_id: 'gpt-x', ...extra })).body as {
      id: number;
    };
  const skill = async (c: Client, extra: Record<string, unknown> = {}) =>
    (await c.post('/studio/api/skills', { name: 'S', ...extra })).body as { id: number };

  test('deleting an agent used by workflow nodes is 409 naming them; it works once the graph no longer uses it', async () => {
    const ag = await a.post(API, { name: 'Drafter' });
    const wf = await a.post('/studio/api/workflows', { name: 'My pack' });
    expectStatus(wf, 201);
    const node = (key: string, stage: string) => ({
      node_key: key,
      type: 'agent',
      agent_id: ag.body.id,
      stage_label: stage,
      config: {},
      position_x: 0,
      position_y: 0,
    });
    const saved = await a.put(`/studio/api/workflows/${wf.body.id}/graph`, {
      nodes: [node('draft', 'discover'), node('polish', 'design')],
      edges: [
        { from_node: 'start', to_node: 'draft', condition: null },
        { from_node: 'draft', to_node: 'polish', condition: null },
      ],
    });
    expectStatus(saved, 200);
    const del = await a.delete(`${API}/${ag.body.id}`);
    expectStatus(del, 409);
    // named for a person: the agent, its nodes and their workflow by name, never by id
    expect(del.body.detail).toBe(
      `The agent "${ag.body.name}" is used by the nodes "draft" of "My pack" and "polish" of "My pack": remove those nodes, or give them another agent, first.`,
    );
    expectStatus(await a.get(`${API}/${ag.body.id}`), 200, 'still there');
    expectStatus(await a.put(`/studio/api/workflows/${wf.body.id}/graph`, { nodes: [], edges: [] }), 200);
    expectStatus(await a.delete(`${API}/${ag.body.id}`), 204);
  });

  test('concurrent skill/model deletes and agent saves never leave a dangling reference', async () => {
    const pairs = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => ({
        s: await skill(b, { name: `race ${i}` }),
        m: await model(b, { label: `race ${i}` }),
      })),
    );
    const results = await Promise.all(
      pairs.flatMap(({ s, m }) => [
        b.post(API, { name: 'racer', skill_ids: [s.id], model_id: m.id }),
        b.delete(`/studio/api/skills/${s.id}`),
        b.delete(`/studio/api/models/${m.id}`),
      ]),
    );
    for (const r of results) assert.ok([201, 204, 400, 409].includes(r.status), `${r.status} ${r.text.slice(0, 200)}`);
    const dangling = await ds.query(
      `SELECT a.id FROM agents a WHERE EXISTS (SELECT 1 FROM unnest(a.skill_ids) AS sid WHERE NOT EXISTS (SELECT 1 FROM skills s WHERE s.id = sid))`,
    );
    assert.deepEqual(dangling, []);
  });

  test('resolveForRuntime: skill prompts in order, union of tools (MCP server/tool names apart), the model with its key; null when not visible', async () => {
    const agents = t.created.app.get(AgentsService);
    const m = await model(a, { api_key: KEY, temperature: 0.5, max_tokens: 256 });
    const s1 = await skill(a, {
      name: 'one',
      prompt_md: 'first prompt',
      tool_allowlist: ['read_file', 'docs/search', 'search_files'],
      tools_requiring_approval: ['docs/search'],
    });
    const s2 = await skill(a, { name: 'two', prompt_md: 'second prompt', tool_allowlist: ['write_file'] });
    const empty = await skill(a, { name: 'empty' });
    const ag = await a.post(API, {
      name: 'R',
      role: 'role',
      system_prompt: 'sys',
      model_id: m.id,
      skill_ids: [s2.id, empty.id, s1.id],
      tool_allowlist: ['write_file', 'kit/echo', 'list_files'],
      tools_requiring_approval: ['write_file', 'kit/echo'],
      max_iterations: 3,
    });
    const r = await agents.resolveForRuntime(userA, ag.body.id);
    assert.deepEqual(r, {
      id: ag.body.id,
      name: 'R',
      role: 'role',
      system_prompt: 'sys',
      skill_prompts: ['second prompt', 'first prompt'],
      tools: ['write_file', 'list_files', 'read_file', 'search_files'],
      external_tools: ['kit/echo', 'docs/search'],
      // per-tool approval: the agent's own ∪ its skills'
      tools_requiring_approval: ['write_file', 'kit/echo', 'docs/search'],
      max_iterations: 3,
      model: {
        provider: 'vendor_a',
        model_id: 'gpt-x',
        api_base: null,
        api_key: KEY,
        temperature: 0.5,
        max_tokens: 256,
      },
    });
    const plain = await a.post(API, { name: 'P' });
    assert.equal((await agents.resolveForRuntime(userA, plain.body.id))?.model, null, 'no model = the server default');
    assert.equal(await agents.resolveForRuntime(userB, ag.body.id), null, "another user's agent");
    assert.equal(await agents.resolveForRuntime(null, ag.body.id), null, 'anonymous: system agents only');
    assert.equal(await agents.resolveForRuntime(userA, 99999999999), null);
    const sys = (await b.get(API)).body.find((x: { is_system: boolean }) => x.is_system);
    assert.equal((await agents.resolveForRuntime(null, sys.id))?.id, sys.id);
  });

  test('lists are own + system, newest first', async () => {
    const one = await b.post(API, { name: 'first' });
    const two = await b.post(API, { name: 'second' });
    const three = await b.post(API, { name: 'third' });
    const list = (await b.get(API)).body as Array<{ id: number; owner_id: number | null; created_at: string }>;
    assert.deepEqual(
      list
        .filter((x) => x.owner_id !== null)
        .slice(0, 3)
        .map((x) => x.id),
      [three.body.id, two.body.id, one.body.id],
    );
    for (let i = 1; i < list.length; i++)
      assert.ok(Date.parse(list[i - 1].created_at) >= Date.parse(list[i].created_at), 'sorted by created_at desc');
  });

  test('malformed ids are 400, unknown ids 404', async () => {
    for (const id of ['abc', '1.5', '12abc']) {
      expectStatus(await a.get(`${API}/${id}`), 400, `GET ${id}`);
      expectStatus(await a.put(`${API}/${id}`, { name: 'x' }), 400, `PUT ${id}`);
      expectStatus(await a.delete(`${API}/${id}`), 400, `DELETE ${id}`);
    }
    for (const id of ['999999', '0', '99999999999']) {
      expectStatus(await a.get(`${API}/${id}`), 404, `GET ${id}`);
      expectStatus(await a.put(`${API}/${id}`, { name: 'x' }), 404, `PUT ${id}`);
      expectStatus(await a.delete(`${API}/${id}`), 404, `DELETE ${id}`);
    }
  });
});
