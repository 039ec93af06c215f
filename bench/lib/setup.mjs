// Everything a scenario needs, made through the public API as a user would: login, a personal access
// token (the bearer for all load), a `custom` model on the fake provider, agents, cloned PDLC packs
// with a replaced graph, and projects bound to them. Each piece is made once per server, on demand.
import { Api } from './http.mjs';
import { ADMIN } from './processes.mjs';

export const CHAT_TEXT_TOKENS = 20;
const WORDS = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'do'];
/** What the fake provider streams for `{tokens: n}` (fake-llm.ts turnText). */
export function fakeText(n) {
  return Array.from({ length: n }, (_, i) => WORDS[i % WORDS.length]).join(' ');
}

export class BenchSetup {
  constructor(server, fake) {
    this.server = server;
    this.fake = fake;
    this.api = new Api(server.url);
    this.cache = new Map();
  }

  once(key, make) {
    if (!this.cache.has(key)) this.cache.set(key, make());
    return this.cache.get(key);
  }

  /** Logs in with the form's endpoint, then mints a token; every later call uses `Bearer`. */
  login() {
    return this.once('login', async () => {
      const session = new Api(this.server.url);
      await session.post('/auth/login', ADMIN, { expect: 200 });
      const { body } = await session.post('/auth/tokens', { name: 'bench' }, { expect: 201 });
      this.token = body.token;
      this.api.bearer = body.token;
      await this.api.get('/auth/me', { expect: 200 });
      return this.token;
    });
  }

  get authHeader() {
    return { authorization: `Bearer ${this.token}` };
  }

  /** The seeded system PDLC pack with its graph (its system agents are usable by anyone). */
  systemPack() {
    return this.once('pdlc', async () => {
      await this.login();
      const { body: list } = await this.api.get('/studio/api/workflows', { expect: 200 });
      const pdlc = list.find((w) => w.slug === 'pdlc' && w.is_system);
      if (!pdlc) throw new Error('the system PDLC pack (slug pdlc) is missing');
      const { body } = await this.api.get(`/studio/api/workflows/${pdlc.id}`, { expect: 200 });
      const agentByStage = {};
      for (const n of body.nodes)
        if (n.type === 'agent' && n.agent_id && n.stage_label && !agentByStage[n.stage_label])
          agentByStage[n.stage_label] = n.agent_id;
      return { ...body, agentByStage };
    });
  }

  /** A clone of the PDLC pack owned by the bench user, with `graph` saved over it. */
  async pack(slug, graph) {
    return this.once(`pack:${slug}`, async () => {
      const pdlc = await this.systemPack();
      const { body: wf } = await this.api.post(
        `/studio/api/workflows/${pdlc.id}/clone`,
        { name: `Bench ${slug}`, slug },
        { expect: 201 },
      );
      const { body: saved } = await this.api.put(`/studio/api/workflows/${wf.id}/graph`, await graph(pdlc), {
        expect: 200,
      });
      return { ...wf, version: saved.version, nodes: saved.nodes.length };
    });
  }

  model() {
    return this.once('model', async () => {
      await this.login();
      const { body } = await this.api.post(
        '/studio/api/models',
        { label: 'Bench fake provider', provider: 'custom', model_id: 'fake-model', api_base: this.fake.openaiBase },
        { expect: 201 },
      );
      return body;
    });
  }

  agent(kind) {
    return this.once(`agent:${kind}`, async () => {
      const model = await this.model();
      const tools = kind === 'tools' ? ['read_file', 'write_file'] : [];
      const { body } = await this.api.post(
        '/studio/api/agents',
        {
          name: `Bench ${kind} agent`,
          role: 'benchmark',
          system_prompt: 'You are a benchmark agent. Answer briefly.',
          model_id: model.id,
          tool_allowlist: tools,
          max_iterations: 8,
        },
        { expect: 201 },
      );
      return body;
    });
  }

  /** A pack whose graph is one agent node (`plain`: no tools; `tools`: read_file/write_file). */
  agentPack(kind) {
    return this.once(`agentPack:${kind}`, async () => {
      const agent = await this.agent(kind);
      return this.pack(`bench-${kind}`, async () => ({
        nodes: [
          {
            node_key: 'agent',
            type: 'agent',
            agent_id: agent.id,
            stage_label: 'discover',
            config: {},
            position_x: 0,
            position_y: 0,
          },
        ],
        edges: [{ from_node: 'start', to_node: 'agent', condition: null }],
      }));
    });
  }

  /** `count` projects named `${prefix}-${i}` bound to the `kind` pack at stage discover. */
  projects(kind, prefix, count) {
    return this.once(`projects:${prefix}:${count}`, async () => {
      const pack = await this.agentPack(kind);
      const slugs = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
      let next = 0;
      const worker = async () => {
        while (next < slugs.length) {
          const slug = slugs[next++];
          await this.api.put(
            `/agent/workflows/${slug}`,
            { domain: 'pdlc', stage: 'discover', pack_id: pack.id },
            { expect: 200 },
          );
        }
      };
      await Promise.all(Array.from({ length: Math.min(8, count) }, worker));
      return slugs;
    });
  }

  async project(kind, slug) {
    const [s] = await this.projects(kind, slug, 1);
    return s;
  }
}

/**
 * A pack graph of `n` nodes: the six PDLC stages in order, mostly agent nodes (the system agent of
 * their stage), a gate every tenth node, laid out on a grid, chained with a skip edge every fifth node.
 */
export function bigGraph(pdlc, n) {
  const stages = pdlc.stages;
  const nodes = [];
  const edges = [{ from_node: 'start', to_node: 'n0', condition: null }];
  const cols = Math.ceil(Math.sqrt(n * 1.6));
  for (let i = 0; i < n; i++) {
    const stage = stages[Math.min(stages.length - 1, Math.floor((i * stages.length) / n))];
    const gate = i % 10 === 9;
    nodes.push({
      node_key: `n${i}`,
      type: gate ? 'gate' : 'agent',
      agent_id: gate ? null : pdlc.agentByStage[stage],
      stage_label: stage,
      config: gate ? {} : { artifact: `docs/${stage}/n${i}.md`, note: `node ${i} of ${n}` },
      position_x: (i % cols) * 260,
      position_y: Math.floor(i / cols) * 140,
    });
    if (i > 0) edges.push({ from_node: `n${i - 1}`, to_node: `n${i}`, condition: null });
    if (i >= 5 && i % 5 === 0) edges.push({ from_node: `n${i - 5}`, to_node: `n${i}`, condition: null });
  }
  return { nodes, edges };
}
