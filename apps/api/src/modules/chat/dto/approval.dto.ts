/** Per-tool approval (docs/API.md, "Per-tool approval"): the pending call and the user's decision on it. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsString, MaxLength, ValidateIf } from 'class-validator';

/** A rejection's reason (what the model reads as the tool's result). */
export const MAX_REASON = 4096;
/** Edited arguments, as JSON text. */
export const MAX_EDITED_ARGUMENTS = 64 * 1024;
export const DECISIONS = ['approve', 'reject', 'edit'] as const;

export class PendingApprovalView {
  @ApiProperty() call_id: string;
  @ApiProperty({ description: 'the allowlist name: a workspace tool, or `server/tool` for an MCP tool' }) name: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) arguments: Record<string, unknown>;
}

export class AwaitingApprovalView extends PendingApprovalView {
  @ApiProperty({ format: 'uuid' }) run_id: string;
}

/** POST /agent/runs/{id}/approvals/{call_id}. */
export class ApprovalDecisionDto {
  @ApiProperty({
    enum: DECISIONS,
    description:
      '`approve`: the tool runs; `reject`: it does not, the model reads `reason` as its result; `edit`: it runs with `arguments`',
  })
  @IsIn(DECISIONS)
  decision: (typeof DECISIONS)[number];

  @ApiPropertyOptional({ maxLength: MAX_REASON, description: 'reject only (required): why, for the model' })
  @ValidateIf((_o, v) => v !== undefined)
  @IsString()
  @MaxLength(MAX_REASON)
  reason?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: `edit only (required): the arguments the tool runs with (a JSON object, at most ${MAX_EDITED_ARGUMENTS} characters)`,
  })
  @ValidateIf((_o, v) => v !== undefined)
  @IsObject()
  arguments?: Record<string, unknown>;
}

export class ApprovalAcceptedView {
  @ApiProperty({ format: 'uuid' }) run_id: string;
}
