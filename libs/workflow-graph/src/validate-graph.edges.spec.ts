import assert from 'node:assert/strict';
import { MAX_EDGES, MAX_NODES } from './types';
import { validateGraph } from './validate-graph';
import {
  STAGES,
  context,
  type Json,
  sample,
  errorsOf,
  fields,
  withNode,
  withEdge,
} from './test-support/graph-fixtures';

describe('validateGraph: edge rules', () => {
  test('both ends must exist (dangling edges)', () => {
    assert.deepEqual(errorsOf(withEdge({ from_node: 'ghost', to_node: 'design' })), [
      ['edges[8].from_node', 'unknown node "ghost"'],
    ]);
    assert.deepEqual(errorsOf(withEdge({ from_node: 'design', to_node: 'ghost' })), [
      ['edges[8].to_node', 'unknown node "ghost"'],
    ]);
    assert.deepEqual(errorsOf(withEdge({ to_node: 'design' })), [['edges[8].from_node', 'is required']]);
    assert.deepEqual(errorsOf(withEdge({ from_node: 'design', to_node: 5 })), [
      ['edges[8].to_node', 'must be a string'],
    ]);
  });

  test('edges naming a node whose key is malformed are not reported again', () => {
    const g = withNode({ node_key: 'bad key' }, 1);
    g.edges = g.edges.map((e) => ({
      ...e,
      from_node: e['from_node'] === 'gate_1' ? 'bad key' : e['from_node'],
      to_node: e['to_node'] === 'gate_1' ? 'bad key' : e['to_node'],
    }));
    assert.deepEqual(fields(g), ['nodes[1].node_key']);
    assert.equal(validateGraph(g, context()).graph, null);
  });

  test('start may only be an origin', () => {
    assert.deepEqual(errorsOf(withEdge({ from_node: 'design', to_node: 'start' })), [
      ['edges[8].to_node', '"start" can only be an edge\'s from_node'],
    ]);
    assert.deepEqual(errorsOf(withEdge({ from_node: 'start', to_node: 'design' })), []);
  });

  test('a condition must parse', () => {
    assert.deepEqual(errorsOf(withEdge({ from_node: 'check', to_node: 'design', condition: 'reply == "a")' })), [
      ['edges[8].condition', 'unexpected ")" at 12'],
    ]);
    assert.deepEqual(
      errorsOf(withEdge({ from_node: 'check', to_node: 'design', condition: 'secrets()' })).map((e) => e[0]),
      ['edges[8].condition'],
    );
    assert.deepEqual(errorsOf(withEdge({ from_node: 'check', to_node: 'design', condition: 1 })), [
      ['edges[8].condition', 'must be a string or null'],
    ]);
  });

  test('a blank condition is the default (null)', () => {
    const result = validateGraph(withEdge({ from_node: 'check', to_node: 'design', condition: '  ' }), context());
    assert.deepEqual(result.errors, []);
    assert.equal(result.graph?.edges[8]?.condition, null);
  });

  test('duplicate edges are errors; the same ends with another condition are not', () => {
    assert.deepEqual(errorsOf(withEdge({ from_node: 'start', to_node: 'discover', condition: null })), [
      ['edges[8]', 'duplicate of edges[0] (same from_node, to_node and condition)'],
    ]);
    assert.deepEqual(
      errorsOf(withEdge({ from_node: 'check', to_node: 'develop', condition: 'contains(reply, "FAIL")' })),
      [['edges[8]', 'duplicate of edges[6] (same from_node, to_node and condition)']],
    );
    assert.deepEqual(
      errorsOf(withEdge({ from_node: 'check', to_node: 'develop', condition: 'contains(reply, "OOPS")' })),
      [],
    );
  });
});

describe('validateGraph: warnings do not block saving', () => {
  test('an unreachable node', () => {
    const g = sample();
    g.nodes.push({ node_key: 'island', type: 'agent', agent_id: 1, stage_label: 'design' });
    const result = validateGraph(g, context());
    assert.deepEqual(result.errors, []);
    assert.ok(result.graph);
    assert.deepEqual(result.warnings, [
      { field: 'nodes[6]', node_key: 'island', message: 'node "island" is not reachable from start' },
    ]);
  });

  test('a stage with no agent node', () => {
    const result = validateGraph(sample(), context({ stages: [...STAGES, 'deploy'] }));
    assert.deepEqual(result.warnings, [{ field: 'stages', message: 'stage "deploy" has no agent node' }]);
    assert.ok(result.graph);
  });

  test('a branch without a default edge', () => {
    const g = sample();
    g.edges = g.edges.filter((e) => !(e['from_node'] === 'check' && e['condition'] === null));
    const result = validateGraph(g, context());
    assert.deepEqual(
      result.warnings.map((w) => [w.field, w.node_key]),
      [['nodes[5]', 'check']],
    );
    assert.match(result.warnings[0]?.message ?? '', /branch "check" has no default/);
    assert.ok(result.graph);
  });

  test('a gate with no outgoing edge', () => {
    const g = sample();
    g.edges = g.edges.filter((e) => e['from_node'] !== 'gate_1');
    const result = validateGraph(g, context());
    assert.deepEqual(result.warnings.map((w) => w.message).slice(0, 2), [
      'gate "gate_1" has no outgoing edge, so approving it leads nowhere',
      'node "design" is not reachable from start',
    ]);
    assert.equal(result.warnings.length, 5); // design, gate_2, develop and check are cut off
    assert.ok(result.graph);
  });

  test('no edge from start', () => {
    const g = sample();
    g.edges = g.edges.filter((e) => e['from_node'] !== 'start');
    const result = validateGraph(g, context());
    assert.equal(result.warnings[0]?.field, 'edges');
    assert.match(result.warnings[0]?.message ?? '', /no edge leaves "start"/);
    assert.equal(result.warnings.filter((w) => /not reachable/.test(w.message)).length, 6);
    assert.ok(result.graph);
  });

  test('warnings are also computed when there are errors', () => {
    const g = withNode({ position_x: 'x' }, 1);
    g.nodes.push({ node_key: 'island', type: 'gate' });
    const result = validateGraph(g, context());
    assert.equal(result.graph, null);
    assert.deepEqual(
      result.errors.map((e) => e.field),
      ['nodes[1].position_x'],
    );
    assert.deepEqual(
      result.warnings.map((w) => w.node_key),
      ['island', 'island'],
    );
  });
});

describe('validateGraph: performance', () => {
  test('2,000 nodes and 5,000 edges (smoke test)', () => {
    const stages = ['s0', 's1', 's2', 's3', 's4', 's5'];
    const nodes = Array.from({ length: MAX_NODES }, (_, i) => ({
      node_key: `node_${i}`,
      type: i % 10 === 9 ? 'branch' : i % 10 === 5 ? 'gate' : 'agent',
      agent_id: i % 10 === 9 || i % 10 === 5 ? null : (i % 50) + 1,
      stage_label: stages[i % stages.length],
      config: { artifact: `docs/out_${i}.md` },
      position_x: i * 10,
      position_y: i,
    }));
    const edges: Json[] = [{ from_node: 'start', to_node: 'node_0' }];
    for (let i = 1; edges.length < MAX_EDGES; i++) {
      const from = `node_${i % MAX_NODES}`;
      edges.push({
        from_node: from,
        to_node: `node_${(i + 1 + Math.floor(i / MAX_NODES)) % MAX_NODES}`,
        condition: null,
      });
      if (edges.length < MAX_EDGES) {
        edges.push({
          from_node: from,
          to_node: `node_${(i * 13 + 3) % MAX_NODES}`,
          condition: `contains(reply, "word${i % 97}") && (exists("docs/x_${i}.md") || len(files) > ${i % 5})`,
        });
      }
    }
    // Every other edge has its own condition (2,500 distinct ones to parse): a worst case.
    const input = JSON.parse(JSON.stringify({ nodes, edges })) as unknown;
    const times: string[] = [];
    let result = validateGraph({ nodes: [], edges: [] }, { stages, isAgentVisible: () => true });
    for (let run = 0; run < 4; run++) {
      const started = performance.now();
      result = validateGraph(input, { stages, isAgentVisible: () => true });
      times.push((performance.now() - started).toFixed(1));
    }
    console.info(
      `validated ${nodes.length} nodes and ${edges.length} edges in ${times.join(' / ')} ms (first run is cold)`,
    );
    assert.deepEqual(result.errors, []);
    assert.equal(result.graph?.nodes.length, MAX_NODES);
    assert.equal(result.graph?.edges.length, MAX_EDGES);
  });
});
