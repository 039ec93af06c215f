/** The pack the chat API specs run turns on: a fake-model agent in a gate or a branch graph. */
import assert from 'node:assert/strict';
import type { FakeLlm } from './fake-llm';
import type { Client } from './http';

const TOOLS = ['list_files', 'read_file', 'write_file', 'edit_file', 'search_files'];

export async function setupPack(
  c: Client,
  fake: FakeLlm,
  opts: { maxIterations?: number; graph?: 'gate' | 'branch' } = {},
) {
  const model = await c.post('/studio/api/models', {
    label: 'Fake',
    provider: 'custom',
    model_id: 'fake-1',
    api_base: fake.openaiBase,
    api_key: 'sk-user-key',
  });
  assert.equal(model.status, 201, model.text);
  const agent = await c.post('/studio/api/agents', {
    name: 'Scribe',
    role: 'writer',
    model_id: model.body.id,
    tool_allowlist: TOOLS,
    max_iterations: opts.maxIterations ?? 8,
  });
  assert.equal(agent.status, 201, agent.text);
  const pack = await c.post('/studio/api/workflows', { name: `Pack ${Math.random()}`, domain: 'pdlc' });
  const id = agent.body.id;
  const graph =
    opts.graph === 'branch'
      ? {
          nodes: [
            { node_key: 'ask', type: 'agent', agent_id: id, stage_label: 'discover' },
            { node_key: 'route', type: 'branch', stage_label: 'discover' },
            { node_key: 'yes', type: 'agent', agent_id: id, stage_label: 'discover' },
            { node_key: 'no', type: 'agent', agent_id: id, stage_label: 'discover' },
          ],
          edges: [
            { from_node: 'start', to_node: 'ask' },
            { from_node: 'ask', to_node: 'route' },
            { from_node: 'route', to_node: 'no', condition: null },
            { from_node: 'route', to_node: 'yes', condition: 'contains(reply, "yes")' },
          ],
        }
      : {
          nodes: [
            {
              node_key: 'write',
              type: 'agent',
              agent_id: id,
              stage_label: 'discover',
              config: { artifact: 'docs/out.md' },
            },
            { node_key: 'gate1', type: 'gate', stage_label: 'discover' },
            { node_key: 'design', type: 'agent', agent_id: id, stage_label: 'design' },
          ],
          edges: [
            { from_node: 'start', to_node: 'write' },
            { from_node: 'write', to_node: 'gate1' },
            { from_node: 'gate1', to_node: 'design' },
          ],
        };
  const g = await c.put(`/studio/api/workflows/${pack.body.id}/graph`, graph);
  assert.equal(g.status, 200, g.text);
  return { packId: pack.body.id as number, agentId: id as number };
}

export async function bind(c: Client, slug: string, packId: number, stage = 'discover') {
  const r = await c.put(`/agent/workflows/${slug}`, { domain: 'pdlc', stage, pack_id: packId });
  assert.equal(r.status, 200, r.text);
}
