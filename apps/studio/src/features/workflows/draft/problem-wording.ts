// Graph problems in a person's words: validateGraph (and the API's 400) speak in field paths
// (`nodes[2].agent_id: agent nodes need an agent_id`); the canvas, its tooltips and the problems list say
// "Choose the agent this node runs." Pure; see graph-draft.view.spec.ts.

const LABELS: Record<string, string> = {
  agent_id: 'Agent',
  stage_label: 'Stage',
  node_key: 'Key',
  type: 'Type',
  condition: 'Condition',
  config: 'Settings',
  'config.artifact': 'Artifact path',
  position_x: 'Position',
  position_y: 'Position',
  from_node: 'From',
  to_node: 'To',
};

const WORDS: [RegExp, string][] = [
  [/\bagent_id\b/g, 'agent'],
  [/\bstage_label\b/g, 'stage'],
  [/\bnode_key\b/g, 'key'],
  [/\bfrom_node\b/g, 'start'],
  [/\bto_node\b/g, 'end'],
];

/** Field names inside a message, in words ("agent nodes need an agent_id" → "… an agent"). */
function plain(message: string): string {
  return WORDS.reduce((m, [re, w]) => m.replace(re, w), message);
}

const RULES: Record<string, [RegExp, (m: RegExpExecArray) => string][]> = {
  agent_id: [
    [/need an agent_id|positive integer/, () => 'Choose the agent this node runs.'],
    [/does not exist|not visible/, () => 'Its agent no longer exists or is not visible to you: choose another.'],
    [/must be null for (\w+) nodes/, (m) => `A ${m[1]} node runs no agent.`],
  ],
  stage_label: [
    [/need a stage_label \((.*)\)/, (m) => `Choose its stage (${m[1]}).`],
    [/^(".*") is not a stage of this workflow \((.*)\)/, (m) => `${m[1]} is not a stage of this workflow (${m[2]}).`],
  ],
  node_key: [[/duplicate node_key (".*?")/, (m) => `Another node already has the key ${m[1]}.`]],
  from_node: [[/unknown node (.*)/, (m) => `It starts at ${m[1]}, which is not a node of this workflow.`]],
  to_node: [
    [/unknown node (.*)/, (m) => `It leads to ${m[1]}, which is not a node of this workflow.`],
    [/can only be an edge's from_node/, () => 'An edge cannot lead into Start.'],
  ],
  '': [[/^duplicate of edges\[\d+\]/, () => 'Another edge has the same ends and condition.']],
};

/** One problem of a node or edge (`rest` is its field below `nodes[i]` / `edges[i]`), as a person reads it. */
export function problemWording(rest: string | undefined, message: string): string {
  for (const [re, say] of RULES[rest ?? ''] ?? []) {
    const m = re.exec(message);
    if (m) return say(m);
  }
  if (!rest) return plain(message);
  const label = LABELS[rest] ?? rest.replace(/[_.]/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
  return `${label}: ${plain(message)}`;
}
