// Every record and payload type the studio exchanges with the API, written from docs docs/API.md§6a.
// Kept in this one file on purpose: it will be replaced by types generated from /openapi.json
// (libs/contracts), so nothing else in the studio declares wire shapes.

// ---------- common ----------

export interface FieldError {
  field: string;
  message: string;
}

/** RFC 9457 problem document (docs/API.md). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code?: string;
  errors?: FieldError[];
}

export interface StudioRecord {
  id: number;
  owner_id: number | null;
  is_system: boolean;
  created_at: string;
  updated_at: string;
}

// ---------- auth (§2) ----------

export interface User {
  id: number;
  username: string;
  is_admin?: boolean;
}

/** GET /auth/setup: whether the server still has no user (first run). */
export interface SetupState {
  needed: boolean;
}

export interface Credentials {
  username: string;
  password: string;
}

// ---------- studio resources (§4) ----------

export type ModelProvider = 'vendor_a' | 'vendor_b' | 'custom';

export interface Model extends StudioRecord {
  label: string;
  provider: ModelProvider;
  model_id: string;
  api_base: string | null;
  temperature: number | null;
  max_tokens: number | null;
  has_api_key: boolean;
}

export interface ModelInput {
  label?: string;
  provider?: ModelProvider;
  model_id?: string;
  api_base?: string | null;
  temperature?: number | null;
  max_tokens?: number | null;
  /** Write-only. */
  api_key?: string | null;
}

export type ToolName = 'list_files' | 'read_file' | 'write_file' | 'edit_file' | 'search_files';

// Text fields of skills, agents and workflows are never null: empty is ''.
export interface Skill extends StudioRecord {
  name: string;
  description: string;
  prompt_md: string;
  tool_allowlist: ToolName[];
  artifact_hint: string;
}

export interface SkillInput {
  name?: string;
  description?: string;
  prompt_md?: string;
  tool_allowlist?: ToolName[];
  artifact_hint?: string;
}

export interface Agent extends StudioRecord {
  name: string;
  role: string;
  system_prompt: string;
  model_id: number | null;
  skill_ids: number[];
  tool_allowlist: ToolName[];
  max_iterations: number;
}

export interface AgentInput {
  name?: string;
  role?: string;
  system_prompt?: string;
  model_id?: number | null;
  skill_ids?: number[];
  tool_allowlist?: ToolName[];
  max_iterations?: number;
}

export type NodeType = 'agent' | 'gate' | 'branch';

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

export interface GraphWarning {
  field: string;
  node_key?: string;
  message: string;
}

export interface Workflow extends StudioRecord {
  name: string;
  slug: string;
  description: string;
  domain: string;
  stages: string[];
  version: number;
}

export interface WorkflowDetail extends Workflow {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface WorkflowInput {
  name?: string;
  slug?: string;
  description?: string;
  domain?: string;
  stages?: string[];
}

export interface WorkflowGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  version: number;
  /** Non-blocking problems, returned by a save (docs/API.md). */
  warnings?: GraphWarning[];
}

export interface SaveGraphInput {
  nodes: GraphNode[];
  edges: GraphEdge[];
  version?: number;
}

export interface CloneWorkflowInput {
  name?: string;
  slug?: string;
}

export interface ExportDocument {
  format: 'service-workflow-pack';
  version: 1;
  pack: Record<string, unknown>;
  models: Record<string, unknown>[];
  skills: Record<string, unknown>[];
  agents: Record<string, unknown>[];
  nodes: Record<string, unknown>[];
  edges: Record<string, unknown>[];
}

export interface ImportResult {
  workflow: Workflow;
  created: { models: number | unknown[]; skills: number | unknown[]; agents: number | unknown[] };
}

// ---------- projects and workflow state (§5) ----------

export interface Project {
  id: number;
  slug: string;
  name: string | null;
  owner_id: number | null;
  pack_id?: number | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectInput {
  slug: string;
  name?: string;
  pack_id?: number;
}

export interface AwaitingGate {
  node_key: string;
  stage: string;
  /** null when the gate closes the last stage */
  next_stage: string | null;
}

export interface WorkflowState {
  project_slug: string;
  domain: string | null;
  stage: string | null;
  pack_id: number | null;
  stages: string[];
  awaiting_gate: AwaitingGate | null;
  /** the project's turn in flight, to re-attach to after a reload */
  running_run_id?: string | null;
}

export interface BindWorkflowInput {
  domain: string;
  stage: string;
  pack_id: number;
}

/** An item of `GET /agent/workflows`. `id` is the pack's slug. */
export interface AgentPack {
  id: string;
  pack_id: number;
  slug: string;
  name: string;
  domain: string;
  stages: string[];
  is_system: boolean;
}

export interface AgentWorkflowsResponse {
  workflows: AgentPack[];
  packs: AgentPack[];
  domains: AgentPack[];
}

export interface WorkspaceFile {
  path: string;
  size: number;
  revision: number;
  updated_at: string;
}

export interface FileContent {
  path: string;
  content: string;
  revision: number;
}

export interface FileRevision {
  revision: number;
  size?: number;
  created_at?: string;
  change?: string;
}

// ---------- chat (§6) ----------

export interface AgentRef {
  id: number | null;
  name: string;
  role: string | null;
}

export interface ToolCallSummary {
  name: string;
  arguments: unknown;
  ok: boolean;
  output?: unknown;
  error?: string;
}

export interface HistoryMessage {
  id: number;
  run_id: number | string | null;
  /** 'user', 'assistant', 'system' or 'tool' today; kept open for roles a newer server adds. */
  role: string;
  content: string;
  stage: string | null;
  node_key: string | null;
  agent_id: number | null;
  tool_calls: ToolCallSummary[] | null;
  created_at: string;
  /** e.g. `interrupted` for a run cut short by a restart (docs/API.md), if the API sends it. */
  state?: string;
}

export interface HistoryPage {
  project_slug: string;
  messages: HistoryMessage[];
  next_before: number | string | null;
}

export interface DemoRequest {
  message: string;
  domain?: string;
  stage?: string;
}

export interface DemoResponse {
  reply: string;
  domain: string;
  stage: string;
  agent: AgentRef | null;
  tool_calls: ToolCallSummary[];
  provider: string;
}

export interface AgentStatus {
  provider: string;
  model: string | null;
  configured: { vendor_a: boolean; vendor_b: boolean; custom: boolean };
  demo: boolean;
  version: string;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

// ---------- the event stream (§6a) ----------

export interface StreamEventData {
  status: { run_id: number | string; state: string; provider: string; model: string | null };
  pack: { pack_id: number; slug: string; name: string; domain: string; stages: string[] };
  workflow: {
    project_slug: string | null;
    domain: string;
    stage: string;
    pack_id: number;
    awaiting_gate: AwaitingGate | null;
  };
  stage: { from: string; to: string; index: number; stages: string[] };
  node: { node_key: string; type: NodeType; stage_label: string | null; state: 'started' | 'finished' };
  agent: { agent_id: number | null; name: string; role: string | null; model: string | null };
  content: { delta: string };
  tool_call: { call_id: string; name: string; arguments: unknown };
  tool_result: { call_id: string; name: string; ok: boolean; output: unknown; error?: string };
  files_changed: { files: { path: string; change: 'added' | 'modified' | 'deleted'; revision: number }[] };
  awaiting_gate: AwaitingGate;
  error: { code: string; message: string };
  done: { run_id: number | string; reply: string; usage: Usage | null; state: string };
  close: Record<string, never>;
}

export type StreamEventName = keyof StreamEventData;
