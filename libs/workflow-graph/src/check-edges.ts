// validateGraph's edge pass: ends that name known nodes, conditions that parse, no duplicates.
import { ConditionSyntaxError, parseCondition } from './condition';
import { isPlainObject, own, quote, rejectUnknownFields, type Problems } from './graph-problems';
import { START, type GraphEdge } from './types';

const EDGE_FIELDS = new Set(['from_node', 'to_node', 'condition']);

export interface ResolvedEdge {
  from: string;
  to: string;
  condition: string | null;
}

export function checkEdges(
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
