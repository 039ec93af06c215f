// Every record and payload type the studio exchanges with the API, in one file: what the API sends comes
// from libs/contracts (generated from /openapi.json by `npm run openapi`); what the studio sends is
// written here and checked against the API's request schemas in api-contract.check.ts.
import type { Schema } from '@service/contracts';

// ---------- common ----------

export interface FieldError {
  field: string;
  message: string;
}

/** RFC 9457 problem document (docs/API.md); the studio also makes one for a failure without a response. */
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

export type User = Schema<'UserView'>;
export type UserRecord = Schema<'UserRecordView'>;
export type AccessToken = Schema<'TokenView'>;
export type CreatedAccessToken = Schema<'CreatedTokenView'>;

/** GET /auth/setup: whether the server still has no user (first run). */
export type SetupState = Schema<'SetupStateView'>;

export interface Credentials {
  username: string;
  password: string;
}

// ---------- studio resources (§4) ----------

export type ModelProvider = 'vendor_a' | 'vendor_b' | 'custom';

export type Model = Schema<'ModelView'>;

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

/** An allowlist item: a workspace tool, or an MCP server's tool as `server/tool`. */
export type AllowedTool = ToolName | (string & {});

export type McpServer = Schema<'McpServerView'>;

export interface McpServerInput {
  name?: string;
  url?: string;
  /** Write-only: absent keeps the stored headers, an object replaces them all, null clears them. */
  headers?: Record<string, string> | null;
}

export type McpToolList = Schema<'McpToolListView'>;
export type McpTool = Schema<'McpToolView'>;

// Text fields of skills, agents and workflows are never null: empty is ''.
export type Skill = Schema<'SkillView'>;

export interface SkillInput {
  name?: string;
  description?: string;
  prompt_md?: string;
  tool_allowlist?: AllowedTool[];
  tools_requiring_approval?: AllowedTool[];
  artifact_hint?: string;
}

export type Agent = Schema<'AgentView'>;

export interface AgentInput {
  name?: string;
  role?: string;
  system_prompt?: string;
  model_id?: number | null;
  skill_ids?: number[];
  tool_allowlist?: AllowedTool[];
  tools_requiring_approval?: AllowedTool[];
  max_iterations?: number;
}

export type NodeType = 'agent' | 'gate' | 'branch';

export type GraphNode = Schema<'GraphNodeView'>;

export type GraphEdge = Schema<'GraphEdgeView'>;

export type GraphWarning = Schema<'GraphWarningView'>;

export type Workflow = Schema<'WorkflowView'>;

export type WorkflowDetail = Schema<'WorkflowDetailView'>;

export interface WorkflowInput {
  name?: string;
  slug?: string;
  description?: string;
  domain?: string;
  stages?: string[];
}

/** GET …/graph; a save also returns non-blocking `warnings` (docs/API.md) */
export type VersionSummary = Schema<'VersionSummaryView'>;
export type VersionList = Schema<'VersionListView'>;
export type WorkflowVersion = Schema<'VersionView'>;
export type WorkflowGraph = Schema<'GraphView'> & Partial<Pick<Schema<'SavedGraphView'>, 'warnings'>>;

export interface SaveGraphInput {
  nodes: GraphNode[];
  edges: GraphEdge[];
  version?: number;
}

export interface CloneWorkflowInput {
  name?: string;
  slug?: string;
}

export type ExportDocument = Schema<'PackDocumentView'>;

export type ImportResult = Schema<'ImportResultView'>;

// ---------- projects and workflow state (§5) ----------

export type Project = Schema<'ProjectView'>;

export interface ProjectInput {
  slug: string;
  name?: string;
  pack_id?: number;
}

export type AwaitingGate = Schema<'AwaitingGateView'>;

export type WorkflowState = Schema<'WorkflowStateView'>;
/** A tool call waiting for the user's decision (docs/API.md, "Per-tool approval"). */
export type AwaitingApproval = Schema<'AwaitingApprovalView'>;
export type ApprovalDecision = Schema<'ApprovalDecisionDto'>;
export type RunInfo = Schema<'RunView'>;

export interface BindWorkflowInput {
  domain: string;
  stage: string;
  pack_id: number;
}

/** An item of `GET /agent/workflows`. `id` is the pack's slug. */
export type AgentPack = Schema<'PackListItemView'>;

export type AgentWorkflowsResponse = Schema<'PackListView'>;

export type WorkspaceFile = Schema<'FileEntryView'>;

export type FileContent = Schema<'FileView'>;

export type FileRevision = Schema<'RevisionView'>;

// ---------- chat (§6) ----------

export type HistoryMessage = Schema<'HistoryMessageView'>;

export type HistoryPage = Schema<'HistoryView'>;

export interface DemoRequest {
  message: string;
  domain?: string;
  stage?: string;
}

export type DemoResponse = Schema<'DemoResponseView'>;

export type AgentStatus = Schema<'StatusView'>;

// ---------- the event stream (§6a) ----------

export type { StreamEventData, StreamEventName } from '@service/contracts';
export type Usage = Schema<'UsageData'>;
