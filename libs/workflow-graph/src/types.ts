// The shape of a workflow graph (docs/API.md) shared by the API, the runtime and the studio canvas.

export const NODE_TYPES = ['agent', 'gate', 'branch'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** The virtual origin of every walk. It may only appear as an edge's `from_node`. */
export const START = 'start';

export const MAX_NODES = 2000;
export const MAX_EDGES = 5000;

export const NODE_KEY_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_ARTIFACT_PATH_LENGTH = 512;

export interface GraphNode {
  node_key: string;
  type: NodeType;
  agent_id: number | null;
  stage_label: string | null;
  config: Record<string, unknown>;
  position_x: number;
  position_y: number;
}

export interface GraphEdge {
  from_node: string;
  to_node: string;
  condition: string | null;
}

export interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** A problem that blocks saving; `field` is a path such as `nodes[3].node_key`. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** A problem that does not block saving. */
export interface GraphWarning {
  field: string;
  node_key?: string;
  message: string;
}
