import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { MAX_DB_ID } from '../../../platform/database/db-id';
import { PendingApprovalView } from './approval.dto';

export const MAX_MESSAGE = 32 * 1024;
const SLUG = /^[a-z0-9-]{1,64}$/;
const truthy = ({ value }: { value: unknown }) =>
  value === true || value === 'true' || value === '1'
    ? true
    : value === false || value === 'false' || value === '0' || value === ''
      ? false
      : value;
const int = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;

export class ChatDto {
  @ApiPropertyOptional({ maxLength: MAX_MESSAGE, default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_MESSAGE)
  message?: string;
  @ApiProperty({ pattern: SLUG.source })
  @IsString()
  @Matches(SLUG, { message: 'project_slug must be 1–64 lowercase letters, digits or "-"' })
  project_slug: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 64) domain?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 64) stage?: string;
  @ApiPropertyOptional({ description: 'approve the current gate and move to the next stage first' })
  @IsOptional()
  @Transform(truthy)
  @IsBoolean()
  advance?: boolean;
  @ApiPropertyOptional() @IsOptional() @Transform(int) @IsInt() @Min(1) pack_id?: number;
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 64) node_key?: string;
  @ApiPropertyOptional({
    enum: ['reject', 'enqueue'],
    default: 'reject',
    description:
      'a turn still running on the project: `reject` answers 409 turn_in_progress, `enqueue` waits for it to end',
  })
  @IsOptional()
  @IsIn(['reject', 'enqueue'])
  multitask?: 'reject' | 'enqueue';
}

/** `?multitask=` on POST /agent/chat (the body's field wins). */
export class MultitaskQueryDto {
  @ApiPropertyOptional({
    enum: ['reject', 'enqueue'],
    default: 'reject',
    description:
      'a turn still running on the project: `reject` answers 409 turn_in_progress, `enqueue` waits for it to end',
  })
  @IsOptional()
  @IsIn(['reject', 'enqueue'])
  multitask?: 'reject' | 'enqueue';
}

export class StreamQueryDto {
  @ApiPropertyOptional({ maxLength: MAX_MESSAGE }) @IsOptional() @IsString() @MaxLength(MAX_MESSAGE) message?: string;
  @ApiPropertyOptional({ description: 'omit for demo mode (public)' })
  @IsOptional()
  @IsString()
  @Matches(SLUG)
  project_slug?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 64) domain?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 64) stage?: string;
  @ApiPropertyOptional() @IsOptional() @Transform(int) @IsInt() @Min(1) pack_id?: number;
  @ApiPropertyOptional({ description: 'true, "1" or "true"' })
  @IsOptional()
  @Transform(truthy)
  @IsBoolean()
  advance?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 64) node_key?: string;
  @ApiPropertyOptional({
    enum: ['reject', 'enqueue'],
    default: 'reject',
    description:
      'a turn still running on the project: `reject` answers 409 turn_in_progress, `enqueue` waits for it to end',
  })
  @IsOptional()
  @IsIn(['reject', 'enqueue'])
  multitask?: 'reject' | 'enqueue';
  @ApiPropertyOptional({ description: '`<run_id>:<seq>` to resume (same as the Last-Event-ID header)' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  last_event_id?: string;
}

export class RunStreamQueryDto {
  @ApiPropertyOptional({ description: '`<run_id>:<seq>`: replay after seq (the Last-Event-ID header wins)' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  last_event_id?: string;
}

export class DemoDto {
  @ApiProperty({ maxLength: MAX_MESSAGE }) @IsString() @Length(1, MAX_MESSAGE) message: string;
  @ApiPropertyOptional({ example: 'pdlc' }) @IsOptional() @IsString() @Length(1, 64) domain?: string;
  @ApiPropertyOptional({ example: 'discover' }) @IsOptional() @IsString() @Length(1, 64) stage?: string;
}

export class HistoryQueryDto {
  @ApiPropertyOptional({ description: 'a message id: return messages before it' })
  @IsOptional()
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_DB_ID)
  before?: number;
  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 })
  @IsOptional()
  @Transform(int)
  @IsInt()
  @Min(1)
  limit?: number;
}

export class RunsQueryDto {
  @ApiPropertyOptional({ pattern: SLUG.source, description: "only this project's runs" })
  @IsOptional()
  @IsString()
  @Matches(SLUG, { message: 'project_slug must be 1–64 lowercase letters, digits or "-"' })
  project_slug?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'a run id: return runs started before it' })
  @IsOptional()
  @IsUUID()
  before?: string;
  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 })
  @IsOptional()
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}

class AgentRef {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty() role: string;
}
class ToolCallSummary {
  @ApiProperty() name: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) arguments: Record<string, unknown>;
  @ApiProperty() ok: boolean;
}
class FileChangeSummary {
  @ApiProperty() path: string;
  @ApiProperty({ enum: ['added', 'modified', 'deleted'] }) change: string;
}
class UsageView {
  @ApiProperty() input_tokens: number;
  @ApiProperty() output_tokens: number;
}
class GateView {
  @ApiProperty() node_key: string;
  @ApiProperty() stage: string;
  @ApiProperty({ type: String, nullable: true }) next_stage: string | null;
}

export class ChatResponseView {
  @ApiProperty() run_id: string;
  @ApiProperty() reply: string;
  @ApiProperty() project_slug: string;
  @ApiProperty() domain: string;
  @ApiProperty() stage: string;
  @ApiProperty() pack_id: number;
  @ApiProperty({ type: String, nullable: true }) node_key: string | null;
  @ApiProperty({ type: AgentRef, nullable: true }) agent: AgentRef | null;
  @ApiProperty({ type: [ToolCallSummary] }) tool_calls: ToolCallSummary[];
  @ApiProperty({ type: [FileChangeSummary] }) files_changed: FileChangeSummary[];
  @ApiProperty({ type: GateView, nullable: true }) awaiting_gate: GateView | null;
  @ApiProperty({ type: UsageView }) usage: UsageView;
  @ApiProperty({
    type: PendingApprovalView,
    nullable: true,
    description:
      'the turn stopped at this tool call, awaiting approval (POST /agent/runs/{run_id}/approvals/{call_id})',
  })
  pending_approval: PendingApprovalView | null;
}

export class DemoResponseView {
  @ApiProperty() reply: string;
  @ApiProperty() domain: string;
  @ApiProperty() stage: string;
  @ApiProperty({ type: AgentRef, nullable: true }) agent: AgentRef | null;
  @ApiProperty({ type: [ToolCallSummary] }) tool_calls: ToolCallSummary[];
  @ApiProperty() provider: string;
}

export class TurnErrorView {
  @ApiProperty() code: string;
  @ApiProperty() message: string;
}

class StageChangeView {
  @ApiProperty() from: string;
  @ApiProperty() to: string;
  @ApiProperty({ type: String, nullable: true, description: 'the gate node approved; null when none was pending' })
  gate: string | null;
}

export class HistoryMessageView {
  @ApiProperty() id: number;
  @ApiProperty({ type: String, nullable: true }) run_id: string | null;
  @ApiProperty({ enum: ['user', 'assistant'] }) role: string;
  @ApiProperty() content: string;
  @ApiProperty({ type: String, nullable: true }) stage: string | null;
  @ApiProperty({ type: String, nullable: true }) node_key: string | null;
  @ApiProperty({ type: Number, nullable: true }) agent_id: number | null;
  @ApiProperty({ type: [ToolCallSummary] }) tool_calls: ToolCallSummary[];
  @ApiProperty({
    enum: ['done', 'stopped', 'failed', 'interrupted', 'awaiting_approval'],
    description:
      'how the turn ended: `stopped` (cancelled; the partial reply is kept), `failed` (see `error`), `interrupted` (a restart or shutdown), `awaiting_approval` (a tool call waits for a decision: `pending_approval`); always `done` for user messages',
  })
  state: string;
  @ApiProperty({
    type: TurnErrorView,
    nullable: true,
    description: 'why a failed (or stopped, interrupted) turn ended',
  })
  error: TurnErrorView | null;
  @ApiProperty({
    type: StageChangeView,
    nullable: true,
    description:
      'on the user entry of an Advance (a gate approval): the stage move it made; its `content` is empty when the Advance came without a message',
  })
  stage_change: StageChangeView | null;
  @ApiProperty({
    type: PendingApprovalView,
    nullable: true,
    description:
      'assistant, state `awaiting_approval`: the tool call waiting for a decision (POST /agent/runs/{id}/approvals/{call_id})',
  })
  pending_approval: PendingApprovalView | null;
  @ApiProperty({ description: 'assistant: its turn was resumed after a restart (docs/API.md, "Durable runs")' })
  resumed: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class HistoryView {
  @ApiProperty() project_slug: string;
  @ApiProperty({ type: [HistoryMessageView] }) messages: HistoryMessageView[];
  @ApiProperty({ type: Number, nullable: true, description: 'pass as `before` for the previous page' }) next_before:
    number | null;
}

class ConfiguredView {
  @ApiProperty() vendor_a: boolean;
  @ApiProperty() vendor_b: boolean;
  @ApiProperty() custom: boolean;
}

export class StatusView {
  @ApiProperty({ example: 'offline' }) provider: string;
  @ApiProperty() model: string;
  @ApiProperty({ type: ConfiguredView, description: 'whether each provider kind has server-side configuration' })
  configured: { vendor_a: boolean; vendor_b: boolean; custom: boolean };
  @ApiProperty() demo: boolean;
  @ApiProperty() version: string;
}

export class CancelView {
  @ApiProperty() run_id: string;
  @ApiProperty() state: string;
}

export class ResumeView {
  @ApiProperty({ format: 'uuid' }) run_id: string;
  @ApiProperty({ enum: ['running'] }) state: string;
  @ApiProperty({ description: 'how many times the run has been started, this resume included' }) attempts: number;
}

export class RunView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['running', 'done', 'error', 'cancelled', 'interrupted', 'awaiting_approval'] }) state: string;
  @ApiProperty({
    type: PendingApprovalView,
    nullable: true,
    description: 'the tool call waiting for a decision while the state is `awaiting_approval`',
  })
  pending_approval: PendingApprovalView | null;
  @ApiProperty({ enum: ['chat', 'stream', 'demo'] }) mode: string;
  @ApiProperty({ type: String, nullable: true, description: 'null for a demo run' }) project_slug: string | null;
  @ApiProperty({ type: Number, nullable: true }) pack_id: number | null;
  @ApiProperty({ type: String, nullable: true }) stage: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the node the run ended at (null while running)' })
  node_key: string | null;
  @ApiProperty({ type: UsageView }) usage: UsageView;
  @ApiProperty({ type: TurnErrorView, nullable: true }) error: TurnErrorView | null;
  @ApiProperty({ description: 'how many times the run was started' }) attempts: number;
  @ApiProperty({ description: 'the seq of its last stored event (its `close` once ended)' }) last_seq: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'the run this one reruns from a node' })
  rerun_of: string | null;
  @ApiProperty({
    type: [String],
    description: 'the nodes the run entered, each once: `POST /agent/runs/{id}/rerun` can start at any of them',
  })
  visited_nodes: string[];
}

export class RunListView {
  @ApiProperty({ type: [RunView] }) runs: RunView[];
  @ApiProperty({ type: String, nullable: true, description: 'pass as `before` for the next (older) page' })
  next_before: string | null;
}
