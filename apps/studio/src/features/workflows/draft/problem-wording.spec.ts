import { validateGraph } from '@service/workflow-graph';
import { problemWording } from './problem-wording';

describe('problemWording', () => {
  it.each([
    ['agent_id', 'agent nodes need an agent_id', 'Choose the agent this node runs.'],
    [
      'agent_id',
      'agent 7 does not exist or is not visible',
      'Its agent no longer exists or is not visible to you: choose another.',
    ],
    ['agent_id', 'must be null for gate nodes', 'A gate node runs no agent.'],
    ['stage_label', 'agent nodes need a stage_label (discover, design)', 'Choose its stage (discover, design).'],
    ['node_key', 'duplicate node_key "a" (also nodes[0])', 'Another node already has the key "a".'],
    ['to_node', 'unknown node "ghost"', 'It leads to "ghost", which is not a node of this workflow.'],
    ['to_node', '"start" can only be an edge\'s from_node', 'An edge cannot lead into Start.'],
    [
      undefined,
      'duplicate of edges[0] (same from_node, to_node and condition)',
      'Another edge has the same ends and condition.',
    ],
    ['condition', 'unexpected token ")" at 4', 'Condition: unexpected token ")" at 4'],
    ['config.artifact', 'must be a relative path', 'Artifact path: must be a relative path'],
    ['position_x', 'must be a finite number', 'Position: must be a finite number'],
  ])('%s: %s', (field, message, expected) => {
    expect(problemWording(field, message)).toBe(expected);
  });

  it('leaves no field name in what validateGraph reports for a broken graph', () => {
    const { errors } = validateGraph(
      {
        nodes: [
          { node_key: 'a', type: 'agent', agent_id: null, stage_label: null, config: {}, position_x: 0, position_y: 0 },
          { node_key: 'a', type: 'gate', agent_id: 9, stage_label: 'nope', config: {}, position_x: 0, position_y: 0 },
        ],
        edges: [
          { from_node: 'start', to_node: 'ghost', condition: null },
          { from_node: 'a', to_node: 'a', condition: 'reply ==' },
        ],
      },
      { stages: ['discover', 'design'], isAgentVisible: (id) => id !== 9 },
    );
    expect(errors.length).toBeGreaterThan(3);
    for (const e of errors) {
      const rest = /^(?:nodes|edges)\[\d+\](?:\.(.+))?$/.exec(e.field)?.[1];
      expect(problemWording(rest, e.message)).not.toMatch(/agent_id|stage_label|node_key|from_node|to_node/);
    }
  });
});
