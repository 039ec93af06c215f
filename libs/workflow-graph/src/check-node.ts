// validateGraph's node pass: checks one untrusted node, normalises it, and records what the warning
// pass needs to know about it.
import { artifactPathProblem } from './artifact-path';
import { isPlainObject, own, quote, rejectUnknownFields, type JsonObject, type Problems } from './graph-problems';
import { NODE_KEY_PATTERN, NODE_TYPES, START, type GraphNode, type NodeType } from './types';

const NODE_FIELDS = new Set(['node_key', 'type', 'agent_id', 'stage_label', 'config', 'position_x', 'position_y']);
const NODE_TYPE_SET: ReadonlySet<string> = new Set(NODE_TYPES);

/** What the warning pass needs to know about a node, even one with errors elsewhere. */
export interface NodeFacts {
  index: number;
  key: string;
  type: NodeType | null;
  stageLabel: string | null;
}

export interface NodeCheckEnv {
  problems: Problems;
  stages: ReadonlySet<string>;
  stageList: string;
  agentVisible: (id: number) => boolean;
  keyIndex: Map<string, number>;
  /** Malformed node_key strings: edges naming them are not reported again. */
  badKeys: Set<string>;
  facts: NodeFacts[];
}

export function checkNode(raw: unknown, i: number, env: NodeCheckEnv): GraphNode | null {
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
    problems.error(
      `${path}.type`,
      rawType === undefined ? 'is required (agent, gate or branch)' : 'must be one of agent, gate, branch',
    );
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
