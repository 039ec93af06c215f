import assert from 'node:assert/strict';
import { MAX_EDGES, MAX_NODES } from './types';
import { artifactPathProblem, validateGraph } from './validate-graph';
import { context, type Json, sample, errorsOf, fields, withNode, withEdge } from './test-support/graph-fixtures';

describe('validateGraph: a valid graph', () => {
  test('has no errors and no warnings, and comes back normalised in the same order', () => {
    const result = validateGraph(sample(), context());
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.warnings, []);
    assert.ok(result.graph);
    assert.deepEqual(
      result.graph.nodes.map((n) => n.node_key),
      ['discover', 'gate_1', 'design', 'gate_2', 'develop', 'check'],
    );
    assert.deepEqual(result.graph.nodes[1], {
      node_key: 'gate_1',
      type: 'gate',
      agent_id: null,
      stage_label: null,
      config: {},
      position_x: 260,
      position_y: 0,
    });
    assert.deepEqual(result.graph.nodes[0]?.config, { artifact: 'docs/brief.md' });
    assert.equal(result.graph.nodes[0]?.position_x, 0);
    assert.equal(result.graph.edges.length, 8);
    assert.deepEqual(result.graph.edges[0], { from_node: 'start', to_node: 'discover', condition: null });
    assert.equal(result.graph.edges[6]?.condition, 'contains(reply, "FAIL")');
  });

  test('an empty graph is valid (with a warning per stage)', () => {
    const result = validateGraph({ nodes: [], edges: [] }, context());
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.graph, { nodes: [], edges: [] });
    assert.deepEqual(
      result.warnings.map((w) => w.field),
      ['stages', 'stages', 'stages'],
    );
  });

  test('keys other than nodes and edges are left to the caller', () => {
    assert.deepEqual(errorsOf({ ...sample(), version: 3 }), []);
  });

  test('config and positions: null config means {}; a config is kept as given', () => {
    const result = validateGraph(withNode({ config: null }, 1), context());
    assert.deepEqual(result.graph?.nodes[1]?.config, {});
    const nested = { artifact: 'a.md', prompt: 'hi', extra: { deep: [1, 2] } };
    assert.deepEqual(validateGraph(withNode({ config: nested }), context()).graph?.nodes[0]?.config, nested);
    assert.deepEqual(errorsOf(withNode({ position_x: -12.5, position_y: 1e6 })), []);
  });
});

describe('validateGraph: shape of the input', () => {
  test('the input must be an object with array nodes and edges', () => {
    for (const input of [null, undefined, 'graph', 42, [], [1]]) {
      assert.deepEqual(fields(input), ['graph'], String(input));
    }
    assert.deepEqual(errorsOf({}), [
      ['nodes', 'is required (an array)'],
      ['edges', 'is required (an array)'],
    ]);
    assert.deepEqual(errorsOf({ nodes: {}, edges: 'x' }), [
      ['nodes', 'must be an array'],
      ['edges', 'must be an array'],
    ]);
    assert.equal(validateGraph({ nodes: {}, edges: [] }, context()).graph, null);
  });

  test(`more than ${MAX_NODES} nodes is reported once and nothing else is checked`, () => {
    const nodes = Array.from({ length: MAX_NODES + 1 }, () => ({ bogus: true }));
    const result = validateGraph({ nodes, edges: [{ nope: 1 }] }, context());
    assert.deepEqual(result.errors, [{ field: 'nodes', message: 'at most 2000 nodes are allowed (got 2001)' }]);
    assert.deepEqual(result.warnings, []);
    assert.equal(result.graph, null);
  });

  test(`more than ${MAX_EDGES} edges is reported once`, () => {
    const edges = Array.from({ length: MAX_EDGES + 1 }, () => 'x');
    assert.deepEqual(errorsOf({ nodes: [], edges }), [['edges', 'at most 5000 edges are allowed (got 5001)']]);
  });

  test('nodes and edges must be objects', () => {
    assert.deepEqual(errorsOf({ nodes: [null, [], 'a'], edges: [3] }), [
      ['nodes[0]', 'must be an object'],
      ['nodes[1]', 'must be an object'],
      ['nodes[2]', 'must be an object'],
      ['edges[0]', 'must be an object'],
    ]);
  });

  test('unknown node fields are rejected, not dropped', () => {
    assert.deepEqual(errorsOf(withNode({ id: 7 })), [['nodes[0].id', 'unknown field "id"']]);
    assert.deepEqual(errorsOf(withNode({ 'bad key!': 1 })), [['nodes[0]', 'unknown field "bad key!"']]);
    const polluted = JSON.parse(
      '{"nodes":[{"node_key":"g","type":"gate","__proto__":{"agent_id":1}}],"edges":[{"from_node":"start","to_node":"g"}]}',
    ) as unknown;
    assert.deepEqual(errorsOf(polluted), [['nodes[0].__proto__', 'unknown field "__proto__"']]);
  });

  test('unknown edge fields are rejected', () => {
    assert.deepEqual(errorsOf(withEdge({ from_node: 'start', to_node: 'design', label: 'x' })), [
      ['edges[8].label', 'unknown field "label"'],
    ]);
  });

  test('objects without a prototype are accepted; inherited properties are ignored', () => {
    const node = Object.assign(Object.create(null) as Json, { node_key: 'g', type: 'gate' });
    const inherited = Object.create({ node_key: 'h', type: 'gate' }) as Json;
    assert.deepEqual(errorsOf({ nodes: [node], edges: [{ from_node: 'start', to_node: 'g' }] }), []);
    assert.deepEqual(fields({ nodes: [inherited], edges: [] }), ['nodes[0]']);
  });

  test('problems in many nodes are all reported, up to maxProblems plus a note', () => {
    const nodes = Array.from({ length: 150 }, (_, i) => ({ node_key: `n${i}`, type: 'robot' }));
    const result = validateGraph({ nodes, edges: [] }, context());
    assert.equal(result.errors.length, 101);
    assert.deepEqual(result.errors[100], { field: 'graph', message: '150 problems; only the first 100 are listed' });
    const all = validateGraph({ nodes, edges: [] }, context({ maxProblems: Infinity }));
    assert.equal(all.errors.length, 150);
  });
});

describe('validateGraph: node rules', () => {
  test('node_key must match [A-Za-z0-9_-]{1,64}', () => {
    for (const key of ['', 'has space', 'dot.ted', 'ü', 'x'.repeat(65)]) {
      assert.deepEqual(errorsOf(withNode({ node_key: key }, 1)).slice(0, 1), [
        ['nodes[1].node_key', 'must be 1 to 64 letters, digits, "_" or "-"'],
      ]);
    }
    assert.deepEqual(errorsOf(withNode({ node_key: 12 }, 1)).slice(0, 1), [['nodes[1].node_key', 'must be a string']]);
    const missing = sample();
    delete missing.nodes[1]?.['node_key'];
    assert.deepEqual(errorsOf(missing).slice(0, 1), [['nodes[1].node_key', 'is required']]);
    assert.deepEqual(errorsOf(withNode({ node_key: 'A-z_09' + 'x'.repeat(58) }, 1)).length > 0, true);
  });

  test('node_key must be unique', () => {
    const g = sample();
    g.nodes.push({ node_key: 'design', type: 'gate' });
    assert.deepEqual(errorsOf(g), [['nodes[6].node_key', 'duplicate node_key "design" (also nodes[2])']]);
  });

  test('"start" is not a node', () => {
    const g = sample();
    g.nodes.push({ node_key: 'start', type: 'gate' });
    assert.deepEqual(errorsOf(g), [['nodes[6].node_key', '"start" is reserved for the virtual origin of the graph']]);
  });

  test('type must be agent, gate or branch', () => {
    assert.deepEqual(errorsOf(withNode({ type: 'robot' }, 1)), [
      ['nodes[1].type', 'must be one of agent, gate, branch'],
    ]);
    assert.deepEqual(errorsOf(withNode({ type: undefined }, 1)), [
      ['nodes[1].type', 'is required (agent, gate or branch)'],
    ]);
  });

  test('agent nodes name a visible agent', () => {
    assert.deepEqual(errorsOf(withNode({ agent_id: 12 })), [
      ['nodes[0].agent_id', 'agent 12 does not exist or is not visible'],
    ]);
    assert.deepEqual(errorsOf(withNode({ agent_id: null })), [['nodes[0].agent_id', 'agent nodes need an agent_id']]);
    for (const bad of [1.5, '1', 0, -1, true]) {
      assert.deepEqual(
        errorsOf(withNode({ agent_id: bad })),
        [['nodes[0].agent_id', 'must be a positive integer']],
        String(bad),
      );
    }
  });

  test('isAgentVisible is asked once per agent id', () => {
    const asked: number[] = [];
    const g = sample();
    g.nodes.push({ node_key: 'again', type: 'agent', agent_id: 1, stage_label: 'discover' });
    g.edges.push({ from_node: 'start', to_node: 'again' });
    const result = validateGraph(g, context({ isAgentVisible: (id) => (asked.push(id), true) }));
    assert.deepEqual(result.errors, []);
    assert.deepEqual(asked, [1, 2, 3]);
  });

  test('gates and branches carry no agent', () => {
    assert.deepEqual(errorsOf(withNode({ agent_id: 1 }, 1)), [['nodes[1].agent_id', 'must be null for gate nodes']]);
    assert.deepEqual(errorsOf(withNode({ agent_id: 1 }, 5)), [['nodes[5].agent_id', 'must be null for branch nodes']]);
  });

  test('stage_label must be one of the workflow stages; agents need one', () => {
    assert.deepEqual(errorsOf(withNode({ stage_label: 'deploy' })), [
      ['nodes[0].stage_label', '"deploy" is not a stage of this workflow (one of: discover, design, develop)'],
    ]);
    assert.deepEqual(
      errorsOf(withNode({ stage_label: 'Design' }, 1)).map((e) => e[0]),
      ['nodes[1].stage_label'],
    );
    assert.deepEqual(errorsOf(withNode({ stage_label: null })), [
      ['nodes[0].stage_label', 'agent nodes need a stage_label (one of: discover, design, develop)'],
    ]);
    assert.deepEqual(errorsOf(withNode({ stage_label: 3 }, 1)), [['nodes[1].stage_label', 'must be a string or null']]);
    assert.deepEqual(errorsOf(withNode({ stage_label: 'design' }, 1)), []);
  });

  test('config must be an object', () => {
    for (const bad of [[], 'x', 1, true]) {
      assert.deepEqual(
        errorsOf(withNode({ config: bad })),
        [['nodes[0].config', 'must be an object']],
        JSON.stringify(bad),
      );
    }
  });

  test('config.artifact must be a relative workspace path', () => {
    const cases: Array<[unknown, string]> = [
      ['/etc/passwd', 'must be relative to the workspace (no leading "/")'],
      ['../secret', 'must not contain ".." segments'],
      ['docs/../../x', 'must not contain ".." segments'],
      ['docs\\prd.md', 'must use "/" separators, not backslashes'],
      ['docs/\0prd.md', 'must not contain NUL characters'],
      ['', 'must not be empty'],
      ['a'.repeat(513), 'must be at most 512 characters'],
      ['docs//prd.md', 'must be a normalised path (no empty or "." segments)'],
      ['./prd.md', 'must be a normalised path (no empty or "." segments)'],
      ['docs/', 'must be a normalised path (no empty or "." segments)'],
      [42, 'must be a relative workspace path (a string)'],
    ];
    for (const [artifact, message] of cases) {
      assert.deepEqual(
        errorsOf(withNode({ config: { artifact } })),
        [['nodes[0].config.artifact', message]],
        String(artifact),
      );
    }
    for (const ok of ['prd.md', 'docs/prd.md', 'a/b/c..d/e.txt', '.github/x.yml', 'a'.repeat(512)]) {
      assert.equal(artifactPathProblem(ok), null, ok);
    }
    assert.deepEqual(errorsOf(withNode({ config: { artifact: null } })), []);
  });

  test('positions are finite numbers, 0 when absent', () => {
    for (const bad of ['10', null, Number.NaN, Number.POSITIVE_INFINITY, {}]) {
      assert.deepEqual(
        errorsOf(withNode({ position_x: bad })),
        [['nodes[0].position_x', 'must be a finite number']],
        String(bad),
      );
    }
    assert.deepEqual(fields(withNode({ position_y: '1' })), ['nodes[0].position_y']);
  });

  test('a node with several problems reports each of them', () => {
    assert.deepEqual(
      fields(withNode({ type: 'agent', agent_id: 'x', stage_label: 'nope', config: [], position_y: 'y', extra: 1 }, 1)),
      ['nodes[1].extra', 'nodes[1].agent_id', 'nodes[1].stage_label', 'nodes[1].config', 'nodes[1].position_y'],
    );
  });
});
