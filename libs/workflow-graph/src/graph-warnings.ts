// validateGraph's warning pass: problems that do not block saving (unreachable nodes, branches without
// a default edge, dead-end gates, stages without agents).
import type { ResolvedEdge } from './check-edges';
import type { NodeFacts } from './check-node';
import { quote, type Problems } from './graph-problems';
import { START } from './types';

/** Problems that do not block saving, computed over the parts of the graph that are well formed. */
export function addWarnings(
  facts: readonly NodeFacts[],
  edges: readonly ResolvedEdge[],
  stages: readonly string[],
  problems: Problems,
): void {
  const outgoing = new Map<string, ResolvedEdge[]>();
  for (const edge of edges) {
    const list = outgoing.get(edge.from);
    if (list === undefined) outgoing.set(edge.from, [edge]);
    else list.push(edge);
  }

  if (facts.length > 0 && !outgoing.has(START)) {
    problems.warn('edges', 'no edge leaves "start", so no node can be reached; connect start to the first node');
  }

  const reached = new Set<string>([START]);
  const queue: string[] = [START];
  for (let head = 0; head < queue.length; head++) {
    for (const edge of outgoing.get(queue[head] as string) ?? []) {
      if (reached.has(edge.to)) continue;
      reached.add(edge.to);
      queue.push(edge.to);
    }
  }

  const stagesWithAgents = new Set<string>();
  for (const node of facts) {
    const field = `nodes[${node.index}]`;
    if (!reached.has(node.key)) problems.warn(field, `node ${quote(node.key)} is not reachable from start`, node.key);
    if (node.type === 'agent' && node.stageLabel !== null) stagesWithAgents.add(node.stageLabel);
    const out = outgoing.get(node.key) ?? [];
    if (node.type === 'branch' && !out.some((e) => e.condition === null)) {
      problems.warn(
        field,
        `branch ${quote(node.key)} has no default (condition-less) outgoing edge; the turn stops when no condition holds`,
        node.key,
      );
    }
    if (node.type === 'gate' && out.length === 0) {
      problems.warn(field, `gate ${quote(node.key)} has no outgoing edge, so approving it leads nowhere`, node.key);
    }
  }
  for (const stage of stages) {
    if (!stagesWithAgents.has(stage)) problems.warn('stages', `stage ${quote(stage)} has no agent node`);
  }
}
