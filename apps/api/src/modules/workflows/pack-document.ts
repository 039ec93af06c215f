/**
 * The portable pack document (format "service-workflow-pack", version 1): what export writes and
 * import reads. Pure functions, no database.
 *
 * - `buildPackDocument` turns records into a document whose ids are document-local refs
 *   (`model-1`, `skill-1`, `agent-1`, numbered in order of first use), so the same pack always
 *   exports to the same document. No secrets, owners, timestamps or database ids.
 * - `readPackDocument` checks an untrusted document completely before anything is created: exact key
 *   sets everywhere (unknown keys, `__proto__` included, are errors), bounds, refs that resolve, model
 *   URLs against MODEL_HOSTS, and the graph through `validateGraph` against the agents to be created.
 *   Values are copied field by field into fresh objects; nothing from the input is merged or spread.
 */
import { validateGraph, type Graph, type GraphEdge, type GraphNode, type GraphWarning } from '@service/workflow-graph';
import type { FieldProblem } from '../../platform/errors/domain-error';
import { assertUrlAllowed, HostPolicyError, type HostMode } from '../../platform/net/host-policy';
import type { Agent } from '../agents/agent.entity';
import type { Model, ProviderKind } from '../models/model.entity';
import { TOOL_NAMES, type ToolName } from '../runtime/runtime.types';
import type { Skill } from '../skills/skill.entity';
import { fieldPath, isPlainObject, own, quoteKey, unsafeKeyProblems, type JsonObject } from './graph-body';
import { DOMAIN_PATTERN, MAX_NAME, MAX_STAGES, MAX_TEXT, SLUG_PATTERN, STAGE_PATTERN } from './workflow-rules';

export const PACK_FORMAT = 'service-workflow-pack';
export const PACK_VERSION = 1;
/** At most this many models, skills and agents in one document (a graph has at most 2,000 nodes). */
export const MAX_DEFINITIONS = 2000;
export const MAX_SKILLS_PER_AGENT = 64;
export const MAX_ITERATIONS = 50;
export const MAX_TOKENS = 200000;
export const MAX_API_BASE = 2048;
export const MAX_ARTIFACT_HINT = 512;
export const REF_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_PROBLEMS = 100;
const PROVIDERS: readonly ProviderKind[] = ['vendor_a', 'vendor_b', 'custom'];

export interface PackHeader {
  name: string;
  slug: string;
  description: string;
  domain: string;
  stages: string[];
}
export interface ModelDef {
  ref: string;
  label: string;
  provider: ProviderKind;
  model_id: string;
  api_base: string | null;
  temperature: number | null;
  max_tokens: number | null;
}
export interface SkillDef {
  ref: string;
  name: string;
  description: string;
  prompt_md: string;
  tool_allowlist: ToolName[];
  artifact_hint: string;
}
export interface AgentDef {
  ref: string;
  name: string;
  role: string;
  system_prompt: string;
  model_ref: string | null;
  skill_refs: string[];
  tool_allowlist: ToolName[];
  max_iterations: number;
}
export interface NodeDef {
  node_key: string;
  type: GraphNode['type'];
  agent_ref: string | null;
  stage_label: string | null;
  config: Record<string, unknown>;
  position_x: number;
  position_y: number;
}
export interface PackDocument {
  format: typeof PACK_FORMAT;
  version: typeof PACK_VERSION;
  pack: PackHeader;
  models: ModelDef[];
  skills: SkillDef[];
  agents: AgentDef[];
  nodes: NodeDef[];
  edges: GraphEdge[];
}

// ---------------------------------------------------------------------------------------------
// Export

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
  const agentRef = refs(agents.map((a) => a.id), 'agent');
  const skillRef = refs(skillIds, 'skill');
  const modelRef = refs(modelIds, 'model');

  return {
    format: PACK_FORMAT,
    version: PACK_VERSION,
    pack: { name: src.pack.name, slug: src.pack.slug, description: src.pack.description, domain: src.pack.domain, stages: [...src.pack.stages] },
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
        tool_allowlist: [...s.tool_allowlist] as ToolName[],
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
      tool_allowlist: [...a.tool_allowlist] as ToolName[],
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

// ---------------------------------------------------------------------------------------------
// Import

/** What import creates, every reference resolved to an index in these lists. */
export interface ImportPlan {
  pack: { name: string; slug: string | null; description: string; domain: string; stages: string[] };
  models: ModelDef[];
  skills: SkillDef[];
  /** `model_index`/`skill_indexes` point into `models`/`skills`. */
  agents: Array<AgentDef & { model_index: number | null; skill_indexes: number[] }>;
  /** The validated graph; an agent node's `agent_id` is its agent's index in `agents` plus one. */
  graph: Graph;
  warnings: GraphWarning[];
}

const TOP_KEYS = ['format', 'version', 'pack', 'models', 'skills', 'agents', 'nodes', 'edges'];
const PACK_KEYS = { required: ['name', 'domain', 'stages'], optional: ['slug', 'description'] };
const MODEL_KEYS = { required: ['ref', 'label', 'provider', 'model_id'], optional: ['api_base', 'temperature', 'max_tokens'] };
const SKILL_KEYS = { required: ['ref', 'name'], optional: ['description', 'prompt_md', 'tool_allowlist', 'artifact_hint'] };
const AGENT_KEYS = {
  required: ['ref', 'name'],
  optional: ['role', 'system_prompt', 'model_ref', 'skill_refs', 'tool_allowlist', 'max_iterations'],
};
const NODE_KEYS = ['node_key', 'type', 'agent_ref', 'stage_label', 'config', 'position_x', 'position_y'];

class Problems {
  readonly list: FieldProblem[] = [];
  private count = 0;
  add(field: string, message: string): void {
    this.count++;
    if (this.count <= MAX_PROBLEMS) this.list.push({ field, message });
  }
  addAll(problems: FieldProblem[]): void {
    for (const e of problems) this.add(e.field, e.message);
  }
  get any(): boolean {
    return this.count > 0;
  }
  result(): FieldProblem[] {
    if (this.count > MAX_PROBLEMS) return [...this.list, { field: 'body', message: `${this.count} problems; only the first ${MAX_PROBLEMS} are listed` }];
    return this.list;
  }
}

/** Checks the key set of an object; returns it when it is an object (even with key problems). */
function readObject(p: Problems, value: unknown, path: string, keys: { required: string[]; optional: string[] }): JsonObject | null {
  if (!isPlainObject(value)) {
    p.add(path || 'body', 'must be an object');
    return null;
  }
  const allowed = new Set([...keys.required, ...keys.optional]);
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) p.add(fieldPath(path, key), `unknown field ${quoteKey(key)}`);
  }
  for (const key of keys.required) {
    if (!Object.hasOwn(value, key)) p.add(fieldPath(path, key), 'is required');
  }
  return value;
}

interface StringRule {
  min?: number;
  max: number;
  pattern?: RegExp;
  patternMessage?: string;
  notBlank?: boolean;
}

/** A string field; `fallback` when absent (required fields are reported by readObject). */
function readString(p: Problems, obj: JsonObject, key: string, path: string, rule: StringRule, fallback = ''): string {
  const value = own(obj, key);
  const field = fieldPath(path, key);
  if (value === undefined) return fallback;
  if (typeof value !== 'string') {
    p.add(field, 'must be a string');
    return fallback;
  }
  if (value.length < (rule.min ?? 0) || value.length > rule.max) {
    p.add(field, rule.min ? `must be ${rule.min}–${rule.max} characters` : `must be at most ${rule.max} characters`);
  } else if (rule.notBlank && !/\S/.test(value)) {
    p.add(field, 'must not be blank');
  } else if (rule.pattern && !rule.pattern.test(value)) {
    p.add(field, rule.patternMessage ?? `must match ${rule.pattern.source}`);
  }
  return value;
}

function readNullableString(p: Problems, obj: JsonObject, key: string, path: string, rule: StringRule): string | null {
  const value = own(obj, key);
  if (value === undefined || value === null) return null;
  return readString(p, obj, key, path, rule);
}

function readNumber(
  p: Problems,
  obj: JsonObject,
  key: string,
  path: string,
  rule: { min: number; max: number; integer?: boolean },
): number | null {
  const value = own(obj, key);
  if (value === undefined || value === null) return null;
  const field = fieldPath(path, key);
  if (typeof value !== 'number' || !Number.isFinite(value) || (rule.integer && !Number.isInteger(value))) {
    p.add(field, rule.integer ? 'must be an integer' : 'must be a number');
    return null;
  }
  if (value < rule.min || value > rule.max) p.add(field, `must be between ${rule.min} and ${rule.max}`);
  return value;
}

/** An array field, [] when absent (required ones are reported by readObject) or invalid. */
function readArray(p: Problems, obj: JsonObject, key: string, path: string, max: number): unknown[] {
  const value = own(obj, key);
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    p.add(fieldPath(path, key), 'must be an array');
    return [];
  }
  if (value.length > max) {
    p.add(fieldPath(path, key), `must have at most ${max} items`);
    return [];
  }
  return value;
}

function readTools(p: Problems, obj: JsonObject, path: string): ToolName[] {
  const field = fieldPath(path, 'tool_allowlist');
  const list = readArray(p, obj, 'tool_allowlist', path, TOOL_NAMES.length * 4);
  const out: ToolName[] = [];
  list.forEach((t, i) => {
    if (typeof t !== 'string' || !(TOOL_NAMES as readonly string[]).includes(t)) {
      p.add(`${field}[${i}]`, `must be one of ${TOOL_NAMES.join(', ')}`);
    } else if (out.includes(t as ToolName)) {
      p.add(`${field}[${i}]`, `duplicate tool "${t}"`);
    } else {
      out.push(t as ToolName);
    }
  });
  return out;
}

/** Reads the refs of one collection: each must be a tidy unique string. Returns ref → index. */
function indexRefs(p: Problems, items: Array<JsonObject | null>, path: string): Map<string, number> {
  const index = new Map<string, number>();
  items.forEach((item, i) => {
    if (!item) return;
    const ref = own(item, 'ref');
    if (ref === undefined) return; // reported as required
    if (typeof ref !== 'string' || !REF_PATTERN.test(ref)) {
      p.add(`${path}[${i}].ref`, 'must be 1–64 letters, digits, "_", "." or "-"');
    } else if (index.has(ref)) {
      p.add(`${path}[${i}].ref`, `duplicate ref "${ref}" (also ${path}[${index.get(ref)}])`);
    } else {
      index.set(ref, i);
    }
  });
  return index;
}

export interface ReadResult {
  plan: ImportPlan | null;
  errors: FieldProblem[];
}

/** Checks a whole document; `plan` is set only when there is no problem at all. */
export function readPackDocument(doc: unknown, opts: { hostMode: HostMode }): ReadResult {
  const p = new Problems();
  const top = readObject(p, doc, '', { required: TOP_KEYS, optional: [] });
  if (!top) return { plan: null, errors: p.result() };
  // A wrong format or version means the rest cannot be read by these rules: say only that.
  const format = own(top, 'format');
  const version = own(top, 'version');
  const header: FieldProblem[] = [];
  if (format !== PACK_FORMAT) header.push({ field: 'format', message: `must be "${PACK_FORMAT}"` });
  if (version !== PACK_VERSION) header.push({ field: 'version', message: `must be ${PACK_VERSION} (the document version this server reads)` });
  if (header.length) return { plan: null, errors: header };

  // pack
  const packObj = readObject(p, own(top, 'pack'), 'pack', PACK_KEYS);
  const pack: ImportPlan['pack'] = { name: '', slug: null, description: '', domain: '', stages: [] };
  if (packObj) {
    pack.name = readString(p, packObj, 'name', 'pack', { min: 1, max: MAX_NAME, notBlank: true });
    pack.slug = readNullableString(p, packObj, 'slug', 'pack', {
      min: 1,
      max: 64,
      pattern: SLUG_PATTERN,
      patternMessage: 'must be 1–64 lowercase letters, digits or "-"',
    });
    pack.description = readString(p, packObj, 'description', 'pack', { max: MAX_TEXT });
    pack.domain = readString(p, packObj, 'domain', 'pack', {
      min: 1,
      max: 64,
      pattern: DOMAIN_PATTERN,
      patternMessage: 'must be 1–64 lowercase letters, digits or "-"',
    });
    if (Object.hasOwn(packObj, 'stages')) {
      const stages = readArray(p, packObj, 'stages', 'pack', MAX_STAGES);
      if (Array.isArray(own(packObj, 'stages')) && stages.length === 0) p.add('pack.stages', 'must name at least one stage');
      stages.forEach((s, i) => {
        if (typeof s !== 'string' || !STAGE_PATTERN.test(s)) {
          p.add(`pack.stages[${i}]`, 'must be 1–64 lowercase letters, digits, "_" or "-"');
        } else if (pack.stages.includes(s)) {
          p.add(`pack.stages[${i}]`, `duplicate stage "${s}"`);
        } else {
          pack.stages.push(s);
        }
      });
    }
  }

  const modelItems = readArray(p, top, 'models', '', MAX_DEFINITIONS).map((v, i) => readObject(p, v, `models[${i}]`, MODEL_KEYS));
  const skillItems = readArray(p, top, 'skills', '', MAX_DEFINITIONS).map((v, i) => readObject(p, v, `skills[${i}]`, SKILL_KEYS));
  const agentItems = readArray(p, top, 'agents', '', MAX_DEFINITIONS).map((v, i) => readObject(p, v, `agents[${i}]`, AGENT_KEYS));
  const modelRefs = indexRefs(p, modelItems, 'models');
  const skillRefs = indexRefs(p, skillItems, 'skills');
  const agentRefs = indexRefs(p, agentItems, 'agents');

  // models
  const models: ModelDef[] = [];
  modelItems.forEach((obj, i) => {
    if (!obj) return;
    const path = `models[${i}]`;
    const provider = own(obj, 'provider');
    if (provider !== undefined && !(typeof provider === 'string' && (PROVIDERS as readonly string[]).includes(provider))) {
      p.add(`${path}.provider`, `must be one of ${PROVIDERS.join(', ')}`);
    }
    const apiBase = readNullableString(p, obj, 'api_base', path, { min: 1, max: MAX_API_BASE });
    if (apiBase !== null && apiBase.length <= MAX_API_BASE) {
      try {
        assertUrlAllowed(apiBase, opts.hostMode);
      } catch (err) {
        if (!(err instanceof HostPolicyError)) throw err;
        p.add(`${path}.api_base`, err.message);
      }
    }
    if (provider === 'custom' && apiBase === null) p.add(`${path}.api_base`, 'is required for custom models (an OpenAI-compatible http(s) URL)');
    models.push({
      ref: String(own(obj, 'ref')),
      label: readString(p, obj, 'label', path, { min: 1, max: MAX_NAME, notBlank: true }),
      provider: provider as ProviderKind,
      model_id: readString(p, obj, 'model_id', path, { min: 1, max: MAX_NAME, notBlank: true }),
      api_base: apiBase,
      temperature: readNumber(p, obj, 'temperature', path, { min: 0, max: 2 }),
      max_tokens: readNumber(p, obj, 'max_tokens', path, { min: 1, max: MAX_TOKENS, integer: true }),
    });
  });

  // skills
  const skills: SkillDef[] = [];
  skillItems.forEach((obj, i) => {
    if (!obj) return;
    const path = `skills[${i}]`;
    skills.push({
      ref: String(own(obj, 'ref')),
      name: readString(p, obj, 'name', path, { min: 1, max: MAX_NAME, notBlank: true }),
      description: readString(p, obj, 'description', path, { max: MAX_TEXT }),
      prompt_md: readString(p, obj, 'prompt_md', path, { max: MAX_TEXT }),
      tool_allowlist: readTools(p, obj, path),
      artifact_hint: readString(p, obj, 'artifact_hint', path, { max: MAX_ARTIFACT_HINT }),
    });
  });

  // agents
  const agents: ImportPlan['agents'] = [];
  agentItems.forEach((obj, i) => {
    if (!obj) return;
    const path = `agents[${i}]`;
    const modelRef = readNullableString(p, obj, 'model_ref', path, { min: 1, max: 64 });
    let modelIndex: number | null = null;
    if (modelRef !== null) {
      const idx = modelRefs.get(modelRef);
      if (idx === undefined) p.add(`${path}.model_ref`, `"${truncate(modelRef)}" is not the ref of any entry in models`);
      else modelIndex = idx;
    }
    const skillRefList: string[] = [];
    const skillIndexes: number[] = [];
    readArray(p, obj, 'skill_refs', path, MAX_SKILLS_PER_AGENT).forEach((ref, j) => {
      const field = `${path}.skill_refs[${j}]`;
      if (typeof ref !== 'string') return p.add(field, 'must be a string (a skills[].ref)');
      const idx = skillRefs.get(ref);
      if (idx === undefined) return p.add(field, `"${truncate(ref)}" is not the ref of any entry in skills`);
      if (skillIndexes.includes(idx)) return p.add(field, `duplicate skill "${ref}"`);
      skillRefList.push(ref);
      skillIndexes.push(idx);
    });
    agents.push({
      ref: String(own(obj, 'ref')),
      name: readString(p, obj, 'name', path, { min: 1, max: MAX_NAME, notBlank: true }),
      role: readString(p, obj, 'role', path, { max: MAX_NAME }),
      system_prompt: readString(p, obj, 'system_prompt', path, { max: MAX_TEXT }),
      model_ref: modelRef,
      skill_refs: skillRefList,
      tool_allowlist: readTools(p, obj, path),
      max_iterations: readNumber(p, obj, 'max_iterations', path, { min: 1, max: MAX_ITERATIONS, integer: true }) ?? 8,
      model_index: modelIndex,
      skill_indexes: skillIndexes,
    });
  });

  // graph: nodes name agents by ref; validateGraph sees them as ids (index + 1) that are all visible.
  const rawNodes = own(top, 'nodes');
  const rawEdges = own(top, 'edges');
  const danglingId = agentItems.length + 1;
  const graphNodes: unknown = Array.isArray(rawNodes)
    ? rawNodes.map((raw, i) => {
        if (!isPlainObject(raw)) return raw;
        const path = `nodes[${i}]`;
        const node: JsonObject = {};
        for (const key of Object.keys(raw)) {
          if (!NODE_KEYS.includes(key)) p.add(fieldPath(path, key), `unknown field ${quoteKey(key)}`);
          else if (key !== 'agent_ref') node[key] = raw[key];
        }
        const unsafe: FieldProblem[] = [];
        unsafeKeyProblems(own(raw, 'config'), `${path}.config`, unsafe);
        p.addAll(unsafe);
        const ref = own(raw, 'agent_ref');
        if (ref === undefined || ref === null) {
          node.agent_id = null;
        } else if (typeof ref !== 'string') {
          p.add(`${path}.agent_ref`, 'must be a string (an agents[].ref) or null');
          node.agent_id = danglingId;
        } else {
          const idx = agentRefs.get(ref);
          if (idx === undefined) p.add(`${path}.agent_ref`, `"${truncate(ref)}" is not the ref of any entry in agents`);
          node.agent_id = idx === undefined ? danglingId : idx + 1;
        }
        return node;
      })
    : rawNodes;
  if (rawNodes === undefined || rawEdges === undefined) return { plan: null, errors: p.result() }; // reported as required
  const checked = validateGraph(
    { nodes: graphNodes, edges: rawEdges },
    { stages: pack.stages, isAgentVisible: (id) => id >= 1 && id <= danglingId, maxProblems: MAX_PROBLEMS },
  );
  for (const e of checked.errors) {
    const m = /^(nodes\[\d+\])\.agent_id$/.exec(e.field);
    if (m) p.add(`${m[1]}.agent_ref`, e.message.replace(/agent_id/g, 'agent_ref'));
    else p.add(e.field, e.message);
  }

  if (p.any || !checked.graph) return { plan: null, errors: p.result() };
  return { plan: { pack, models, skills, agents, graph: checked.graph, warnings: checked.warnings }, errors: [] };
}

function truncate(s: string, n = 64): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}
