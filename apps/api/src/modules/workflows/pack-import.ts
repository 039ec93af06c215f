// Pack import: checks an untrusted PackDocument completely and plans what to create (pack-document.ts).
import { validateGraph, type Graph, type GraphWarning } from '@service/workflow-graph';
import type { FieldProblem } from '../../platform/errors/domain-error';
import { assertUrlAllowed, HostPolicyError, type HostMode } from '../../platform/net/host-policy';
import type { ProviderKind } from '../models/model.entity';
import { fieldPath, isPlainObject, own, quoteKey, unsafeKeyProblems, type JsonObject } from './graph-body';
import {
  indexRefs,
  MAX_PROBLEMS,
  Problems,
  readArray,
  readNullableString,
  readNumber,
  readObject,
  readString,
  readApprovalTools,
  readTools,
} from './pack-fields';
import {
  MAX_API_BASE,
  MAX_ARTIFACT_HINT,
  MAX_DEFINITIONS,
  MAX_ITERATIONS,
  MAX_SKILLS_PER_AGENT,
  MAX_TOKENS,
  PACK_FORMAT,
  PACK_VERSION,
  type AgentDef,
  type ModelDef,
  type SkillDef,
} from './pack-format';
import { DOMAIN_PATTERN, MAX_NAME, MAX_STAGES, MAX_TEXT, SLUG_PATTERN, STAGE_PATTERN } from './workflow-rules';

const PROVIDERS: readonly ProviderKind[] = ['vendor_a', 'vendor_b', 'custom'];

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
const MODEL_KEYS = {
  required: ['ref', 'label', 'provider', 'model_id'],
  optional: ['api_base', 'temperature', 'max_tokens'],
};
const SKILL_KEYS = {
  required: ['ref', 'name'],
  optional: ['description', 'prompt_md', 'tool_allowlist', 'tools_requiring_approval', 'artifact_hint'],
};
const AGENT_KEYS = {
  required: ['ref', 'name'],
  optional: [
    'role',
    'system_prompt',
    'model_ref',
    'skill_refs',
    'tool_allowlist',
    'tools_requiring_approval',
    'max_iterations',
  ],
};
const NODE_KEYS = ['node_key', 'type', 'agent_ref', 'stage_label', 'config', 'position_x', 'position_y'];

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
  if (version !== PACK_VERSION)
    header.push({ field: 'version', message: `must be ${PACK_VERSION} (the document version this server reads)` });
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
      if (Array.isArray(own(packObj, 'stages')) && stages.length === 0)
        p.add('pack.stages', 'must name at least one stage');
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

  const modelItems = readArray(p, top, 'models', '', MAX_DEFINITIONS).map((v, i) =>
    readObject(p, v, `models[${i}]`, MODEL_KEYS),
  );
  const skillItems = readArray(p, top, 'skills', '', MAX_DEFINITIONS).map((v, i) =>
    readObject(p, v, `skills[${i}]`, SKILL_KEYS),
  );
  const agentItems = readArray(p, top, 'agents', '', MAX_DEFINITIONS).map((v, i) =>
    readObject(p, v, `agents[${i}]`, AGENT_KEYS),
  );
  const modelRefs = indexRefs(p, modelItems, 'models');
  const skillRefs = indexRefs(p, skillItems, 'skills');
  const agentRefs = indexRefs(p, agentItems, 'agents');

  // models
  const models: ModelDef[] = [];
  modelItems.forEach((obj, i) => {
    if (!obj) return;
    const path = `models[${i}]`;
    const provider = own(obj, 'provider');
    if (
      provider !== undefined &&
      !(typeof provider === 'string' && (PROVIDERS as readonly string[]).includes(provider))
    ) {
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
    if (provider === 'custom' && apiBase === null)
      p.add(`${path}.api_base`, 'is required for custom models (an OpenAI-compatible http(s) URL)');
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
    const tools = readTools(p, obj, path);
    skills.push({
      ref: String(own(obj, 'ref')),
      name: readString(p, obj, 'name', path, { min: 1, max: MAX_NAME, notBlank: true }),
      description: readString(p, obj, 'description', path, { max: MAX_TEXT }),
      prompt_md: readString(p, obj, 'prompt_md', path, { max: MAX_TEXT }),
      tool_allowlist: tools,
      tools_requiring_approval: readApprovalTools(p, obj, path, tools),
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
      if (idx === undefined)
        p.add(`${path}.model_ref`, `"${truncate(modelRef)}" is not the ref of any entry in models`);
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
    const tools = readTools(p, obj, path);
    agents.push({
      ref: String(own(obj, 'ref')),
      name: readString(p, obj, 'name', path, { min: 1, max: MAX_NAME, notBlank: true }),
      role: readString(p, obj, 'role', path, { max: MAX_NAME }),
      system_prompt: readString(p, obj, 'system_prompt', path, { max: MAX_TEXT }),
      model_ref: modelRef,
      skill_refs: skillRefList,
      tool_allowlist: tools,
      tools_requiring_approval: readApprovalTools(p, obj, path, tools),
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
    ? rawNodes.map((raw: unknown, i) => {
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
