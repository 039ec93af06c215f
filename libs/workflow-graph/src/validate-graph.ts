// Graph validation (docs/API.md): turns untrusted JSON into a normalised Graph, or field problems.
// The API runs it inside the save transaction; the studio runs the same function to mark the canvas.
// Everything is indexed with Maps and Sets so 2,000 nodes and 5,000 edges stay well under 50 ms.

import { ConditionSyntaxError, parseCondition } from './condition';
import {
  MAX_ARTIFACT_PATH_LENGTH,
  MAX_EDGES,
  MAX_NODES,
  NODE_KEY_PATTERN,
  NODE_TYPES,
  START,
  type FieldProblem,
  type Graph,
  type GraphEdge,
  type GraphNode,
  type GraphWarning,
  type NodeType,
} from './types';

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

const NODE_FIELDS = new Set(['node_key', 'type', 'agent_id', 'stage_label', 'config', 'position_x', 'position_y']);
const EDGE_FIELDS = new Set(['from_node', 'to_node', 'condition']);
const NODE_TYPE_SET: ReadonlySet<string> = new Set(NODE_TYPES);
const SAFE_FIELD_NAME = /^[A-Za-z0-9_$-]{1,64}$/;
const DOT_DOT_SEGMENT = /(?:^|\/)\.\.(?:\/|$)/;
const EMPTY_OR_DOT_SEGMENT = /(?:^|\/)\.?(?:\/|$)/;

type JsonObject = Record<string, unknown>;

function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Reads an own property only: an inherited `constructor` or a polluted prototype never counts. */
function own(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

/** Why `path` is not an acceptable `config.artifact`, or null when it is a relative workspace path. */
export function artifactPathProblem(path: unknown): string | null {
  if (typeof path !== 'string') return 'must be a relative workspace path (a string)';
  if (path === '') return 'must not be empty';
  if (path.length > MAX_ARTIFACT_PATH_LENGTH) return `must be at most ${MAX_ARTIFACT_PATH_LENGTH} characters`;
  if (path.includes('\0')) return 'must not contain NUL characters';
  if (path.includes('\\')) return 'must use "/" separators, not backslashes';
  if (path.startsWith('/')) return 'must be relative to the workspace (no leading "/")';
  if (DOT_DOT_SEGMENT.test(path)) return 'must not contain ".." segments';
  if (EMPTY_OR_DOT_SEGMENT.test(path)) return 'must be a normalised path (no empty or "." segments)';
  return null;
}

class Problems {
  readonly errors: FieldProblem[] = [];
  readonly warnings: GraphWarning[] = [];
  errorCount = 0;
  private warningCount = 0;
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  error(field: string, message: string): void {
    this.errorCount++;
    if (this.errorCount <= this.limit) this.errors.push({ field, message });
  }

  warn(field: string, message: string, nodeKey?: string): void {
    this.warningCount++;
    if (this.warningCount > this.limit) return;
    this.warnings.push(nodeKey === undefined ? { field, message } : { field, node_key: nodeKey, message });
  }

  finish(): void {
    if (this.errorCount > this.limit) {
      this.errors.push({ field: 'graph', message: `${this.errorCount} problems; only the first ${this.limit} are listed` });
    }
    if (this.warningCount > this.limit) {
      this.warnings.push({
        field: 'graph',
        message: `${this.warningCount} warnings; only the first ${this.limit} are listed`,
      });
    }
  }
}

function rejectUnknownFields(obj: JsonObject, allowed: ReadonlySet<string>, path: string, problems: Problems): void {
  for (const key of Object.keys(obj)) {
    if (allowed.has(key)) continue;
    const field = SAFE_FIELD_NAME.test(key) ? `${path}.${key}` : path;
    problems.error(field, `unknown field ${quote(key)}`);
  }
}

/** What the warning pass needs to know about a node, even one with errors elsewhere. */
interface NodeFacts {
  index: number;
  key: string;
  type: NodeType | null;
  stageLabel: string | null;
}

interface NodeCheckEnv {
  problems: Problems;
  stages: ReadonlySet<string>;
  stageList: string;
  agentVisible: (id: number) => boolean;
  keyIndex: Map<string, number>;
  /** Malformed node_key strings: edges naming them are not reported again. */
  badKeys: Set<string>;
  facts: NodeFacts[];
}

function checkNode(raw: unknown, i: number, env: NodeCheckEnv): GraphNode | null {
  const { problems } = env;
  const path = `nodes[${i}]`;
  if (!isPlainObject(raw)) {
    problems.error(path, 'must be an object');
    return null;
  }
  const before = problems.errorCount;
  rejectUnknownFields(raw, NODE_FIELDS, path, problems);

  const key = own(raw, 'node_key');
  let nodeKey: string | null = null;
  if (typeof key !== 'string') {
    problems.error(`${path}.node_key`, key === undefined ? 'is required' : 'must be a string');
  } else if (!NODE_KEY_PATTERN.test(key)) {
    problems.error(`${path}.node_key`, 'must be 1 to 64 letters, digits, "_" or "-"');
    env.badKeys.add(key);
  } else if (key === START) {
    problems.error(`${path}.node_key`, '"start" is reserved for the virtual origin of the graph');
  } else {
    const first = env.keyIndex.get(key);
    if (first !== undefined) {
      problems.error(`${path}.node_key`, `duplicate node_key ${quote(key)} (also nodes[${first}])`);
    } else {
      env.keyIndex.set(key, i);
      nodeKey = key;
    }
  }

  const rawType = own(raw, 'type');
  let type: NodeType | null = null;
  if (typeof rawType === 'string' && NODE_TYPE_SET.has(rawType)) {
    type = rawType as NodeType;
  } else {
    problems.error(`${path}.type`, rawType === undefined ? 'is required (agent, gate or branch)' : 'must be one of agent, gate, branch');
  }

  const rawAgent = own(raw, 'agent_id');
  let agentId: number | null = null;
  if (type === 'agent') {
    if (rawAgent === undefined || rawAgent === null) {
      problems.error(`${path}.agent_id`, 'agent nodes need an agent_id');
    } else if (typeof rawAgent !== 'number' || !Number.isSafeInteger(rawAgent) || rawAgent < 1) {
      problems.error(`${path}.agent_id`, 'must be a positive integer');
    } else if (!env.agentVisible(rawAgent)) {
      problems.error(`${path}.agent_id`, `agent ${rawAgent} does not exist or is not visible`);
    } else {
      agentId = rawAgent;
    }
  } else if (type !== null && rawAgent !== undefined && rawAgent !== null) {
    problems.error(`${path}.agent_id`, `must be null for ${type} nodes`);
  }

  const rawStage = own(raw, 'stage_label');
  let stageLabel: string | null = null;
  if (rawStage === undefined || rawStage === null) {
    if (type === 'agent') problems.error(`${path}.stage_label`, `agent nodes need a stage_label (${env.stageList})`);
  } else if (typeof rawStage !== 'string') {
    problems.error(`${path}.stage_label`, 'must be a string or null');
  } else if (!env.stages.has(rawStage)) {
    problems.error(`${path}.stage_label`, `${quote(rawStage)} is not a stage of this workflow (${env.stageList})`);
  } else {
    stageLabel = rawStage;
  }

  const rawConfig = own(raw, 'config');
  let config: JsonObject = {};
  if (rawConfig !== undefined && rawConfig !== null) {
    if (!isPlainObject(rawConfig)) {
      problems.error(`${path}.config`, 'must be an object');
    } else {
      config = rawConfig;
      const artifact = own(rawConfig, 'artifact');
      if (artifact !== undefined && artifact !== null) {
        const problem = artifactPathProblem(artifact);
        if (problem !== null) problems.error(`${path}.config.artifact`, problem);
      }
    }
  }

  const position = (field: 'position_x' | 'position_y'): number => {
    const value = own(raw, field);
    if (value === undefined) return 0;
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    problems.error(`${path}.${field}`, 'must be a finite number');
    return 0;
  };
  const positionX = position('position_x');
  const positionY = position('position_y');

  if (nodeKey !== null) env.facts.push({ index: i, key: nodeKey, type, stageLabel });
  if (problems.errorCount !== before || nodeKey === null || type === null) return null;
  return {
    node_key: nodeKey,
    type,
    agent_id: agentId,
    stage_label: stageLabel,
    config,
    position_x: positionX,
    position_y: positionY,
  };
}

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
  if (!Array.isArray(rawNodes)) problems.error('nodes', rawNodes === undefined ? 'is required (an array)' : 'must be an array');
  if (!Array.isArray(rawEdges)) problems.error('edges', rawEdges === undefined ? 'is required (an array)' : 'must be an array');
  if (!Array.isArray(rawNodes) || !Array.isArray(rawEdges)) return done(null);
  if (rawNodes.length > MAX_NODES) problems.error('nodes', `at most ${MAX_NODES} nodes are allowed (got ${rawNodes.length})`);
  if (rawEdges.length > MAX_EDGES) problems.error('edges', `at most ${MAX_EDGES} edges are allowed (got ${rawEdges.length})`);
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

interface ResolvedEdge {
  from: string;
  to: string;
  condition: string | null;
}

function checkEdges(
  rawEdges: unknown[],
  keyIndex: ReadonlyMap<string, number>,
  badKeys: ReadonlySet<string>,
  problems: Problems,
): { valid: GraphEdge[]; resolved: ResolvedEdge[] } {
  const valid: GraphEdge[] = [];
  const resolved: ResolvedEdge[] = [];
  const seen = new Map<string, number>();
  const parsed = new Map<string, string | null>();

  rawEdges.forEach((raw: unknown, i) => {
    const path = `edges[${i}]`;
    if (!isPlainObject(raw)) {
      problems.error(path, 'must be an object');
      return;
    }
    const before = problems.errorCount;
    rejectUnknownFields(raw, EDGE_FIELDS, path, problems);

    const from = own(raw, 'from_node');
    let fromKey: string | null = null;
    if (typeof from !== 'string') {
      problems.error(`${path}.from_node`, from === undefined ? 'is required' : 'must be a string');
    } else if (from !== START && !keyIndex.has(from)) {
      if (!badKeys.has(from)) problems.error(`${path}.from_node`, `unknown node ${quote(from)}`);
    } else {
      fromKey = from;
    }

    const to = own(raw, 'to_node');
    let toKey: string | null = null;
    if (typeof to !== 'string') {
      problems.error(`${path}.to_node`, to === undefined ? 'is required' : 'must be a string');
    } else if (to === START) {
      problems.error(`${path}.to_node`, '"start" can only be an edge\'s from_node');
    } else if (!keyIndex.has(to)) {
      if (!badKeys.has(to)) problems.error(`${path}.to_node`, `unknown node ${quote(to)}`);
    } else {
      toKey = to;
    }

    const rawCondition = own(raw, 'condition');
    let condition: string | null = null;
    let conditionOk = true;
    if (typeof rawCondition === 'string') {
      // A blank condition is what an editor sends when the field is cleared: it means "default".
      if (rawCondition.trim() !== '') {
        condition = rawCondition;
        let message = parsed.get(rawCondition);
        if (message === undefined) {
          message = conditionProblem(rawCondition);
          parsed.set(rawCondition, message);
        }
        if (message !== null) {
          problems.error(`${path}.condition`, message);
          conditionOk = false;
        }
      }
    } else if (rawCondition !== undefined && rawCondition !== null) {
      problems.error(`${path}.condition`, 'must be a string or null');
      conditionOk = false;
    }

    if (fromKey === null || toKey === null) return;
    if (conditionOk) {
      // Node keys cannot hold "\n", and a blank condition is null, so this identity is unambiguous.
      const identity = `${fromKey}\n${toKey}\n${condition ?? ''}`;
      const first = seen.get(identity);
      if (first !== undefined) {
        problems.error(path, `duplicate of edges[${first}] (same from_node, to_node and condition)`);
        return;
      }
      seen.set(identity, i);
    }
    resolved.push({ from: fromKey, to: toKey, condition });
    if (problems.errorCount === before) valid.push({ from_node: fromKey, to_node: toKey, condition });
  });
  return { valid, resolved };
}

function conditionProblem(src: string): string | null {
  try {
    parseCondition(src);
    return null;
  } catch (err) {
    if (err instanceof ConditionSyntaxError) return err.message;
    throw err;
  }
}

/** Problems that do not block saving, computed over the parts of the graph that are well formed. */
function addWarnings(
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
