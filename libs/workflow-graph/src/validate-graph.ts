// Graph validation (docs/API.md): turns untrusted JSON into a normalised Graph, or field problems.
// The API runs it inside the save transaction; the studio runs the same function to mark the canvas.
// Everything is indexed with Maps and Sets so 2,000 nodes and 5,000 edges stay well under 50 ms.

import { checkEdges } from './check-edges';
import { checkNode, type NodeCheckEnv } from './check-node';
import { addWarnings } from './graph-warnings';
import { isPlainObject, own, Problems } from './graph-problems';
import { MAX_EDGES, MAX_NODES, type FieldProblem, type Graph, type GraphNode, type GraphWarning } from './types';

export { artifactPathProblem } from './artifact-path';

export interface ValidateGraphContext {
  /** The workflow's stages, in order. */
  stages: readonly string[];
  /** Whether the caller may reference this agent (own or system). Called at most once per id. */
  isAgentVisible: (id: number) => boolean;
  /** At most this many errors and this many warnings are returned (default 100), plus one note. */
  maxProblems?: number;
}

export interface GraphValidationResult {
  errors: FieldProblem[];
  warnings: GraphWarning[];
  /** The normalised graph (defaults filled in, order preserved) when there are no errors. */
  graph: Graph | null;
}

export const DEFAULT_MAX_PROBLEMS = 100;

/** Validates an untrusted `{nodes, edges}` value. Other top-level keys (e.g. `version`) are the caller's. */
export function validateGraph(input: unknown, ctx: ValidateGraphContext): GraphValidationResult {
  const problems = new Problems(ctx.maxProblems ?? DEFAULT_MAX_PROBLEMS);
  const done = (graph: Graph | null): GraphValidationResult => {
    problems.finish();
    return { errors: problems.errors, warnings: problems.warnings, graph: problems.errorCount === 0 ? graph : null };
  };

  if (!isPlainObject(input)) {
    problems.error('graph', 'must be an object with nodes and edges');
    return done(null);
  }
  const rawNodes = own(input, 'nodes');
  const rawEdges = own(input, 'edges');
  if (!Array.isArray(rawNodes))
    problems.error('nodes', rawNodes === undefined ? 'is required (an array)' : 'must be an array');
  if (!Array.isArray(rawEdges))
    problems.error('edges', rawEdges === undefined ? 'is required (an array)' : 'must be an array');
  if (!Array.isArray(rawNodes) || !Array.isArray(rawEdges)) return done(null);
  if (rawNodes.length > MAX_NODES)
    problems.error('nodes', `at most ${MAX_NODES} nodes are allowed (got ${rawNodes.length})`);
  if (rawEdges.length > MAX_EDGES)
    problems.error('edges', `at most ${MAX_EDGES} edges are allowed (got ${rawEdges.length})`);
  if (problems.errorCount > 0) return done(null);

  const stageList = ctx.stages.length > 0 ? `one of: ${ctx.stages.join(', ')}` : 'this workflow has no stages';
  const visibility = new Map<number, boolean>();
  const env: NodeCheckEnv = {
    problems,
    stages: new Set(ctx.stages),
    stageList,
    agentVisible: (id) => {
      let visible = visibility.get(id);
      if (visible === undefined) {
        visible = ctx.isAgentVisible(id) === true;
        visibility.set(id, visible);
      }
      return visible;
    },
    keyIndex: new Map(),
    badKeys: new Set(),
    facts: [],
  };

  const nodes: GraphNode[] = [];
  rawNodes.forEach((raw: unknown, i) => {
    const node = checkNode(raw, i, env);
    if (node !== null) nodes.push(node);
  });

  const edges = checkEdges(rawEdges, env.keyIndex, env.badKeys, problems);
  addWarnings(env.facts, edges.resolved, ctx.stages, problems);
  return done({ nodes, edges: edges.valid });
}
