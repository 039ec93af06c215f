/** Graphs and checks shared by the validate-graph specs (test support: not part of the library build). */
import { validateGraph, type ValidateGraphContext } from '../validate-graph';

export const STAGES = ['discover', 'design', 'develop'];

export function context(overrides: Partial<ValidateGraphContext> = {}): ValidateGraphContext {
  return { stages: STAGES, isAgentVisible: (id) => id === 1 || id === 2 || id === 3, ...overrides };
}

export type Json = Record<string, unknown>;

/** A valid graph: one agent per stage, gates between them, a branch in develop. */
export function sample(): { nodes: Json[]; edges: Json[] } {
  return {
    nodes: [
      {
        node_key: 'discover',
        type: 'agent',
        agent_id: 1,
        stage_label: 'discover',
        config: { artifact: 'docs/brief.md' },
      },
      { node_key: 'gate_1', type: 'gate', position_x: 260, position_y: 0 },
      { node_key: 'design', type: 'agent', agent_id: 2, stage_label: 'design' },
      { node_key: 'gate_2', type: 'gate', agent_id: null, stage_label: 'design' },
      { node_key: 'develop', type: 'agent', agent_id: 3, stage_label: 'develop', config: {} },
      { node_key: 'check', type: 'branch', stage_label: null },
    ],
    edges: [
      { from_node: 'start', to_node: 'discover' },
      { from_node: 'discover', to_node: 'gate_1', condition: null },
      { from_node: 'gate_1', to_node: 'design' },
      { from_node: 'design', to_node: 'gate_2' },
      { from_node: 'gate_2', to_node: 'develop' },
      { from_node: 'develop', to_node: 'check' },
      { from_node: 'check', to_node: 'develop', condition: 'contains(reply, "FAIL")' },
      { from_node: 'check', to_node: 'gate_2', condition: null },
    ],
  };
}

export function errorsOf(input: unknown, ctx = context()): Array<[string, string]> {
  return validateGraph(input, ctx).errors.map((e) => [e.field, e.message]);
}

export function fields(input: unknown, ctx = context()): string[] {
  return validateGraph(input, ctx).errors.map((e) => e.field);
}

export function withNode(patch: Json, index = 0): { nodes: Json[]; edges: Json[] } {
  const g = sample();
  g.nodes[index] = { ...g.nodes[index], ...patch };
  return g;
}

export function withEdge(edge: Json): { nodes: Json[]; edges: Json[] } {
  const g = sample();
  g.edges.push(edge);
  return g;
}
