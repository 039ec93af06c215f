/**
 * The runtime's contract: what a turn needs (ports the caller provides) and what it emits.
 * The runtime knows nothing of HTTP or Nest: the chat module adapts these events to JSON, SSE and the
 * run log, and implements the ports with the real services (projects, agents, models, workspace).
 */
import type { GraphEdge, GraphNode } from '@service/workflow-graph';
import type { ChatMessage, Provider } from './providers/provider';
import type { CheckpointWriter, Step } from './step-log';

export type ToolName = 'list_files' | 'read_file' | 'write_file' | 'edit_file' | 'search_files';
export const TOOL_NAMES: readonly ToolName[] = ['list_files', 'read_file', 'write_file', 'edit_file', 'search_files'];

export interface AwaitingGate {
  node_key: string;
  stage: string;
  next_stage: string | null;
}

export interface PackSnapshot {
  id: number;
  slug: string;
  name: string;
  domain: string;
  stages: string[];
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface ResolvedModel {
  provider: 'vendor_a' | 'vendor_b' | 'custom' | 'offline';
  model_id: string;
  api_base: string | null;
  /** decrypted, only inside the server process; never emitted */
  api_key: string | null;
  temperature: number | null;
  max_tokens: number | null;
}

export interface ResolvedAgent {
  id: number;
  name: string;
  role: string;
  system_prompt: string;
  /** prompt_md of each skill, in skill_ids order */
  skill_prompts: string[];
  /** union of the agent's and its skills' allowlists */
  tools: ToolName[];
  /** `server/tool` names of the same union: tools of the owner's MCP servers (docs/decisions/mcp.md) */
  external_tools?: string[];
  /** allowlist names (workspace tools and `server/tool`) whose calls wait for a user's decision: the agent's ∪ its skills' */
  tools_requiring_approval?: string[];
  max_iterations: number;
  /** null = the server's default model */
  model: ResolvedModel | null;
}

export interface WorkspaceEntry {
  path: string;
  size: number;
  revision: number;
}

export interface FileChangeInfo {
  path: string;
  /** `unchanged`: the write carried the content the file already had — no revision was recorded. */
  change: 'added' | 'modified' | 'deleted' | 'unchanged';
  revision: number;
}

/** A project's files as the tools see them. Paths are already normalised by the runtime's path helper. */
export interface Workspace {
  readonly readOnly: boolean;
  list(dir?: string): Promise<WorkspaceEntry[]>;
  read(path: string): Promise<{ content: string; revision: number } | null>;
  /**
   * `key` (a run's tool call or artifact: docs/decisions/runtime.md, "Durable runs") is stored with the
   * revision, so a resumed run can ask `landed(key)` instead of applying a write twice.
   */
  write(path: string, content: string, key?: string): Promise<FileChangeInfo>;
  /** The change a keyed write made, or null when none landed (asked only by a resumed run). */
  landed?(key: string): Promise<FileChangeInfo | null>;
  search(query: string, dir?: string): Promise<Array<{ path: string; line: number; text: string }>>;
}

/** A tool from outside the runtime (an MCP server's), as the model is offered it. */
export interface ExternalToolSpec {
  /** the allowlist name, `server/tool` */
  name: string;
  description: string;
  /** JSON schema of the arguments object */
  parameters: Record<string, unknown>;
}

/** The external tools of one agent run: connected when opened, closed when the run ends. */
export interface ExternalToolSession {
  /** the named tools that exist and could be reached (the others are not offered) */
  readonly tools: ExternalToolSpec[];
  /** Calls a tool by its allowlist name; a failure the model should see is `{ok: false, error}`. */
  call(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ ok: boolean; output: string; error?: string }>;
  close(): Promise<void>;
}

/** Where `server/tool` names are resolved (the MCP servers module implements it; nothing here is HTTP). */
export interface ExternalTools {
  /** Never throws for an unreachable server: its tools are left out of the session. */
  open(names: readonly string[], signal: AbortSignal): Promise<ExternalToolSession>;
}

export interface TurnPorts {
  loadAgent(agentId: number): Promise<ResolvedAgent | null>;
  /** Persists the project's stage / gate after every move (no-op in the demo). */
  saveState(state: { stage: string; awaiting_gate: AwaitingGate | null }): Promise<void>;
  workspace: Workspace;
  /** The provider for an agent's model (null = server default); `name`/`model` are shown in events. */
  provider(model: ResolvedModel | null): { provider: Provider; name: string; model: string };
  /** Records one completed step of the turn (absent: nothing is recorded, e.g. the demo). */
  checkpoint?: CheckpointWriter;
  /** tools of MCP servers named `server/tool` in allowlists; absent = none (the demo) */
  externalTools?: ExternalTools;
}

export interface TurnRequest {
  run_id: string;
  message: string;
  advance: boolean;
  node_key: string | null;
  project_slug: string | null;
  pack: PackSnapshot;
  /** the project's current workflow state */
  stage: string;
  awaiting_gate: AwaitingGate | null;
  /** earlier user/assistant messages of this project, oldest first (already bounded by the caller) */
  history: ChatMessage[];
  ports: TurnPorts;
  signal: AbortSignal;
  /** a resumed run: the steps it had completed, replayed before it goes on (step-log.ts) */
  resume?: { steps: Step[] };
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

/**
 * The 14 stream events (docs/API.md), declared once for the server: the OpenAPI classes of
 * chat/dto/stream-events.dto.ts implement them, /openapi.json is generated from those, and clients (the
 * studio) read them from libs/contracts, generated from /openapi.json. `close` is emitted by the chat
 * layer after the run is persisted.
 */
export type RuntimeEvent =
  | {
      event: 'status';
      /** `resumed` (chat layer): events after `drop_after_seq` before this one were superseded */
      data: {
        run_id: string;
        state: string;
        provider: string;
        model: string;
        attempt?: number;
        drop_after_seq?: number;
      };
    }
  | { event: 'pack'; data: { pack_id: number; slug: string; name: string; domain: string; stages: string[] } }
  | {
      event: 'workflow';
      data: {
        project_slug: string | null;
        domain: string;
        stage: string;
        pack_id: number;
        awaiting_gate: AwaitingGate | null;
      };
    }
  | { event: 'stage'; data: { from: string; to: string; index: number; stages: string[] } }
  | {
      event: 'node';
      data: { node_key: string; type: string; stage_label: string | null; state: 'started' | 'finished' };
    }
  /** `model` is the model name the agent runs on; `provider` its provider (offline, vendor_a, vendor_b, custom) */
  | { event: 'agent'; data: { agent_id: number; name: string; role: string; model: string; provider?: string } }
  | { event: 'content'; data: { delta: string } }
  | { event: 'tool_call'; data: { call_id: string; name: string; arguments: unknown } }
  | { event: 'tool_result'; data: { call_id: string; name: string; ok: boolean; output: string; error?: string } }
  | { event: 'files_changed'; data: { files: FileChangeInfo[] } }
  | { event: 'awaiting_gate'; data: AwaitingGate }
  /** a tool call that requires approval: the turn stops `awaiting_approval` (docs/decisions/runtime.md) */
  | { event: 'approval'; data: PendingApproval }
  | { event: 'error'; data: { code: string; message: string } }
  | { event: 'done'; data: { run_id: string; reply: string; usage: Usage; state: string } }
  | { event: 'close'; data: Record<string, never> };

export type RuntimeEventName = RuntimeEvent['event'];
/** The data of one event, e.g. `RuntimeEventData<'done'>`; the chat module's OpenAPI classes implement these. */
export type RuntimeEventData<N extends RuntimeEventName> = Extract<RuntimeEvent, { event: N }>['data'];

/** What the turn ended with (also carried by the `done` event), for the sync chat response and history. */
export interface TurnResult {
  /** `interrupted`: stopped by a server shutdown (docs/OPERATIONS.md, "Shutdown") */
  state: 'done' | 'error' | 'cancelled' | 'interrupted' | 'awaiting_approval';
  reply: string;
  stage: string;
  awaiting_gate: AwaitingGate | null;
  node_key: string | null;
  /** the agent node whose reply this is (node_key is where the walk stopped, e.g. a gate) */
  reply_node_key?: string | null;
  agent: { id: number; name: string; role: string } | null;
  tool_calls: Array<{ name: string; arguments: unknown; ok: boolean }>;
  files_changed: FileChangeInfo[];
  usage: Usage;
  error: { code: string; message: string } | null;
  /** the call waiting for a decision when the state is `awaiting_approval` */
  approval?: PendingApproval | null;
}

/** A tool call waiting for the user's decision; `name` is its allowlist name (`server/tool` for MCP). */
export interface PendingApproval {
  call_id: string;
  name: string;
  arguments: unknown;
}
