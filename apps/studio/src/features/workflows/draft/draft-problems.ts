// Validation problems on the canvas: `{field, message}` problems mapped onto the nodes and edges they name.
import type { FieldError, GraphWarning } from '../../../shared/api-types';
import type { GraphDraft } from './draft-model';
import { problemWording } from './problem-wording';

export interface ElementProblems {
  errors: string[];
  warnings: string[];
}

export interface ProblemMap {
  nodes: Map<string, ElementProblems>;
  edges: Map<string, ElementProblems>;
  /** Problems that belong to no single node or edge (e.g. `stages`, `graph`). */
  general: { kind: 'error' | 'warning'; field: string; message: string }[];
  errorCount: number;
  warningCount: number;
}

const ELEMENT_FIELD = /^(nodes|edges)\[(\d+)\](?:\.(.+))?$/;

function bucket(map: Map<string, ElementProblems>, id: string): ElementProblems {
  let b = map.get(id);
  if (!b) map.set(id, (b = { errors: [], warnings: [] }));
  return b;
}

/**
 * Puts `{field, message}` problems (client validateGraph or the API's 400) on the draft element they
 * name: `nodes[3].agent_id` → the 4th node, `edges[0].condition` → the 1st edge; a warning's
 * `node_key` wins over its field. Indexes refer to `draft` (the draft that was validated or sent).
 */
export function mapProblems(
  draft: GraphDraft,
  errors: readonly FieldError[],
  warnings: readonly GraphWarning[] = [],
): ProblemMap {
  const out: ProblemMap = {
    nodes: new Map(),
    edges: new Map(),
    general: [],
    errorCount: errors.length,
    warningCount: warnings.length,
  };
  const place = (kind: 'error' | 'warning', field: string, message: string, nodeKey?: string) => {
    if (nodeKey !== undefined) {
      const n = draft.nodes.find((x) => x.node_key === nodeKey);
      if (n) {
        const b = bucket(out.nodes, n.uid);
        (kind === 'error' ? b.errors : b.warnings).push(message);
        return;
      }
    }
    const m = ELEMENT_FIELD.exec(field);
    if (m) {
      const index = Number(m[2]);
      const rest = m[3];
      if (m[1] === 'nodes' && draft.nodes[index]) {
        const b = bucket(out.nodes, draft.nodes[index].uid);
        (kind === 'error' ? b.errors : b.warnings).push(problemWording(rest, message));
        return;
      }
      if (m[1] === 'edges' && draft.edges[index]) {
        const b = bucket(out.edges, draft.edges[index].id);
        (kind === 'error' ? b.errors : b.warnings).push(problemWording(rest, message));
        return;
      }
    }
    out.general.push({ kind, field, message });
  };
  for (const e of errors) place('error', e.field, e.message);
  for (const w of warnings) place('warning', w.field, w.message, w.node_key);
  return out;
}

/** Union of two problem maps (client validation + the API's answer), without repeated messages. */
export function mergeProblemMaps(a: ProblemMap | null, b: ProblemMap | null): ProblemMap | null {
  if (!a) return b;
  if (!b) return a;
  const mergeInto = (target: Map<string, ElementProblems>, src: Map<string, ElementProblems>) => {
    for (const [id, p] of src) {
      const t = target.get(id);
      if (!t) {
        target.set(id, { errors: [...p.errors], warnings: [...p.warnings] });
        continue;
      }
      for (const m of p.errors) if (!t.errors.includes(m)) t.errors.push(m);
      for (const m of p.warnings) if (!t.warnings.includes(m)) t.warnings.push(m);
    }
  };
  const copy = (m: Map<string, ElementProblems>) =>
    new Map([...m].map(([k, v]) => [k, { errors: [...v.errors], warnings: [...v.warnings] }]));
  const nodes = copy(a.nodes);
  const edges = copy(a.edges);
  mergeInto(nodes, b.nodes);
  mergeInto(edges, b.edges);
  const general = [...a.general];
  for (const g of b.general) if (!general.some((x) => x.kind === g.kind && x.message === g.message)) general.push(g);
  const count = (kind: 'errors' | 'warnings') =>
    [...nodes.values(), ...edges.values()].reduce((n, p) => n + p[kind].length, 0) +
    general.filter((g) => g.kind === (kind === 'errors' ? 'error' : 'warning')).length;
  return { nodes, edges, general, errorCount: count('errors'), warningCount: count('warnings') };
}

/** The problems of one node (`kind: 'nodes'`, by uid) or edge (by id). */
export function problemsFor(map: ProblemMap | null, kind: 'nodes' | 'edges', id: string): ElementProblems | undefined {
  return map?.[kind].get(id);
}
