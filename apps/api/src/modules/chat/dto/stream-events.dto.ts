/**
 * Schemas of the 14 SSE events of GET /agent/stream (docs/API.md), for /openapi.json. Each class
 * implements the runtime's declaration of its event (runtime.types.ts), so the document cannot drift
 * from what the runtime emits; libs/contracts derives the clients' types from the document.
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { FileChangeInfo, RuntimeEventData } from '../../runtime/runtime.types';

class GateData implements RuntimeEventData<'awaiting_gate'> {
  @ApiProperty() node_key: string;
  @ApiProperty() stage: string;
  @ApiProperty({ type: String, nullable: true }) next_stage: string | null;
}
class UsageData {
  @ApiProperty() input_tokens: number;
  @ApiProperty() output_tokens: number;
}
class FileChangeData implements FileChangeInfo {
  @ApiProperty() path: string;
  @ApiProperty({ enum: ['added', 'modified', 'deleted'] }) change: FileChangeInfo['change'];
  @ApiProperty() revision: number;
}

export class StatusEvent implements RuntimeEventData<'status'> {
  @ApiProperty() run_id: string;
  @ApiProperty({ enum: ['queued', 'running', 'resumed'], example: 'running' }) state: string;
  @ApiProperty() provider: string;
  @ApiProperty() model: string;
  @ApiPropertyOptional({ description: 'resumed: how many times the run has been started' }) attempt?: number;
  @ApiPropertyOptional({
    description:
      'resumed: events after this seq (and before this event) were superseded — drop them (the partial text of the model call made again, a tool call run again)',
  })
  drop_after_seq?: number;
}
export class PackEvent implements RuntimeEventData<'pack'> {
  @ApiProperty() pack_id: number;
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty() domain: string;
  @ApiProperty({ type: [String] }) stages: string[];
}
export class WorkflowEvent implements RuntimeEventData<'workflow'> {
  @ApiProperty({ type: String, nullable: true }) project_slug: string | null;
  @ApiProperty() domain: string;
  @ApiProperty() stage: string;
  @ApiProperty() pack_id: number;
  @ApiProperty({ type: GateData, nullable: true }) awaiting_gate: GateData | null;
}
export class StageEvent implements RuntimeEventData<'stage'> {
  @ApiProperty() from: string;
  @ApiProperty() to: string;
  @ApiProperty() index: number;
  @ApiProperty({ type: [String] }) stages: string[];
}
export class NodeEvent implements RuntimeEventData<'node'> {
  @ApiProperty() node_key: string;
  @ApiProperty({ enum: ['agent', 'gate', 'branch'] }) type: string;
  @ApiProperty({ type: String, nullable: true }) stage_label: string | null;
  @ApiProperty({ enum: ['started', 'finished'] }) state: 'started' | 'finished';
}
export class AgentEvent implements RuntimeEventData<'agent'> {
  @ApiProperty() agent_id: number;
  @ApiProperty() name: string;
  @ApiProperty() role: string;
  @ApiProperty() model: string;
  @ApiPropertyOptional({ description: 'the provider of the model: offline, vendor_a, vendor_b or custom' })
  provider?: string;
}
export class ContentEvent implements RuntimeEventData<'content'> {
  @ApiProperty() delta: string;
}
export class ToolCallEvent implements RuntimeEventData<'tool_call'> {
  @ApiProperty() call_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) arguments: Record<string, unknown>;
}
export class ToolResultEvent implements RuntimeEventData<'tool_result'> {
  @ApiProperty() call_id: string;
  @ApiProperty() name: string;
  @ApiProperty() ok: boolean;
  @ApiProperty({ description: 'truncated to 16 KiB' }) output: string;
  @ApiPropertyOptional() error?: string;
}
export class FilesChangedEvent implements RuntimeEventData<'files_changed'> {
  @ApiProperty({ type: [FileChangeData] }) files: FileChangeData[];
}
export class AwaitingGateEvent extends GateData {}
export class ApprovalEvent implements RuntimeEventData<'approval'> {
  @ApiProperty() call_id: string;
  @ApiProperty({ description: 'the allowlist name: a workspace tool, or `server/tool` for an MCP tool' }) name: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) arguments: unknown;
}
export class ErrorEvent implements RuntimeEventData<'error'> {
  @ApiProperty({ example: 'max_iterations' }) code: string;
  @ApiProperty() message: string;
}
export class DoneEvent implements RuntimeEventData<'done'> {
  @ApiProperty() run_id: string;
  @ApiProperty() reply: string;
  @ApiProperty({ type: UsageData }) usage: UsageData;
  @ApiProperty({ enum: ['done', 'error', 'cancelled', 'interrupted', 'awaiting_approval'] }) state: string;
}
export class CloseEvent {}

export const StreamEventModels = [
  StatusEvent,
  PackEvent,
  WorkflowEvent,
  StageEvent,
  NodeEvent,
  AgentEvent,
  ContentEvent,
  ToolCallEvent,
  ToolResultEvent,
  FilesChangedEvent,
  AwaitingGateEvent,
  ApprovalEvent,
  ErrorEvent,
  DoneEvent,
  CloseEvent,
];

export const STREAM_EVENT_DOC = [
  'Server-sent events. Each event: `id: <run_id>:<seq>`, `event: <name>`, `data: <JSON>`; a comment line every 15 s while quiet.',
  'Reconnect with `Last-Event-ID: <run_id>:<seq>` (or `last_event_id`) to replay after seq and continue live.',
  'Events, in order: `status` (StatusEvent) first; `pack` (PackEvent); `workflow` (WorkflowEvent), again as the last event before `done`;',
  '`stage` (StageEvent) on every stage move; `node` (NodeEvent) around every node; `agent` (AgentEvent) when an agent node starts;',
  '`content` (ContentEvent) as model text streams; `tool_call` (ToolCallEvent) before a tool runs and `tool_result` (ToolResultEvent) after;',
  '`files_changed` (FilesChangedEvent) after workspace writes; `awaiting_gate` (AwaitingGateEvent) when a gate stops the turn;',
  '`approval` (ApprovalEvent) when a tool call requiring approval stops the turn (`done` state `awaiting_approval`; decide with POST /agent/runs/{id}/approvals/{call_id});',
  '`error` (ErrorEvent) on failure; `done` (DoneEvent) when the turn is over; `close` (CloseEvent, `{}`) last.',
].join(' ');
