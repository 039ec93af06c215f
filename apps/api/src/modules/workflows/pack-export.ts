// Pack export: records → a PackDocument whose ids are document-local refs (pack-document.ts).
import type { Graph } from '@service/workflow-graph';
import type { Agent } from '../agents/agent.entity';
import type { Model } from '../models/model.entity';
import type { Skill } from '../skills/skill.entity';
import { PACK_FORMAT, PACK_VERSION, type PackDocument, type PackHeader } from './pack-format';

export interface PackSource {
  pack: PackHeader;
  graph: Graph;
  /** Every agent the graph names, every skill and model those agents name (any order). */
  agents: Agent[];
  skills: Skill[];
  models: Model[];
}

/** Agent ids in order of first use by the graph's nodes. */
export function agentIdsOf(graph: Graph): number[] {
  return unique(graph.nodes.map((n) => n.agent_id).filter((id): id is number => id !== null));
}

export function buildPackDocument(src: PackSource): PackDocument {
  const agentById = new Map(src.agents.map((a) => [a.id, a]));
  const skillById = new Map(src.skills.map((s) => [s.id, s]));
  const modelById = new Map(src.models.map((m) => [m.id, m]));
  const agents = agentIdsOf(src.graph).map((id) => required(agentById, id, 'agent'));
  const skillIds = unique(agents.flatMap((a) => a.skill_ids));
  const modelIds = unique(agents.map((a) => a.model_id).filter((id): id is number => id !== null));
  const agentRef = refs(
    agents.map((a) => a.id),
    'agent',
  );
  const skillRef = refs(skillIds, 'skill');
  const modelRef = refs(modelIds, 'model');

  return {
    format: PACK_FORMAT,
    version: PACK_VERSION,
    pack: {
      name: src.pack.name,
      slug: src.pack.slug,
      description: src.pack.description,
      domain: src.pack.domain,
      stages: [...src.pack.stages],
    },
    models: modelIds.map((id) => {
      const m = required(modelById, id, 'model');
      return {
        ref: modelRef.get(id) as string,
        label: m.label,
        provider: m.provider,
        model_id: m.model_id,
        api_base: m.api_base,
        temperature: m.temperature === null ? null : Number(m.temperature),
        max_tokens: m.max_tokens,
      };
    }),
    skills: skillIds.map((id) => {
      const s = required(skillById, id, 'skill');
      return {
        ref: skillRef.get(id) as string,
        name: s.name,
        description: s.description,
        prompt_md: s.prompt_md,
        tool_allowlist: [...s.tool_allowlist],
        ...(s.tools_requiring_approval?.length ? { tools_requiring_approval: [...s.tools_requiring_approval] } : {}),
        artifact_hint: s.artifact_hint,
      };
    }),
    agents: agents.map((a) => ({
      ref: agentRef.get(a.id) as string,
      name: a.name,
      role: a.role,
      system_prompt: a.system_prompt,
      model_ref: a.model_id === null ? null : (modelRef.get(a.model_id) as string),
      skill_refs: a.skill_ids.map((id) => skillRef.get(id) as string),
      tool_allowlist: [...a.tool_allowlist],
      ...(a.tools_requiring_approval?.length ? { tools_requiring_approval: [...a.tools_requiring_approval] } : {}),
      max_iterations: a.max_iterations,
    })),
    nodes: src.graph.nodes.map((n) => ({
      node_key: n.node_key,
      type: n.type,
      agent_ref: n.agent_id === null ? null : (agentRef.get(n.agent_id) as string),
      stage_label: n.stage_label,
      config: n.config,
      position_x: n.position_x,
      position_y: n.position_y,
    })),
    edges: src.graph.edges.map((e) => ({ from_node: e.from_node, to_node: e.to_node, condition: e.condition })),
  };
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

function refs(ids: number[], prefix: string): Map<number, string> {
  return new Map(ids.map((id, i) => [id, `${prefix}-${i + 1}`]));
}

function required<T>(map: Map<number, T>, id: number, noun: string): T {
  const row = map.get(id);
  if (row === undefined) throw new Error(`export: ${noun} ${id} was not loaded`);
  return row;
}
