import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { TOOL_NAMES } from '../../runtime/runtime.types';
import { MAX_TOOLS } from '../tool-allowlist';

/** What an allowlist item may be (docs/API.md). */
export const TOOLS_DOC = `workspace tools (${TOOL_NAMES.join(', ')}) and MCP server tools as server/tool`;

/** Names and labels. */
export const MAX_NAME = 200;
/** Prompts and descriptions: 64 KiB of characters. */
export const MAX_PROMPT = 65536;
export const MAX_ARTIFACT_HINT = 512;

/** The field may be absent; when present it is validated: `null` is not a way to skip validation. */
export const Optional = () => ValidateIf((_obj, value) => value !== undefined);

/** A required, non-blank name of at most 200 characters. */
export const NameField = (example?: string) =>
  applyDecorators(
    ApiProperty({ maxLength: MAX_NAME, example }),
    IsString(),
    Length(1, MAX_NAME),
    Matches(/\S/, { message: 'name must not be blank' }),
  );

/** An optional text of at most 64 KiB (never null). */
export const PromptField = (description?: string) =>
  applyDecorators(
    ApiPropertyOptional({ maxLength: MAX_PROMPT, description }),
    Optional(),
    IsString(),
    MaxLength(MAX_PROMPT),
  );

/** Known tool names; the service names unknown items (`tool_allowlist[i]`) and removes duplicates. */
export const ToolAllowlistField = () =>
  applyDecorators(
    ApiPropertyOptional({
      type: String,
      isArray: true,
      maxItems: MAX_TOOLS,
      description: `${TOOLS_DOC}; duplicates are removed, order kept`,
    }),
    Optional(),
    IsArray(),
    ArrayMaxSize(MAX_TOOLS),
    IsString({ each: true }),
  );

/** Names from the record's own tool_allowlist whose calls wait for the user's approval. */
export const ApprovalListField = () =>
  applyDecorators(
    ApiPropertyOptional({
      type: String,
      isArray: true,
      maxItems: MAX_TOOLS,
      description:
        'names from tool_allowlist (workspace tools or server/tool) whose calls stop the run `awaiting_approval` until the user decides (docs/API.md, "Per-tool approval")',
    }),
    Optional(),
    IsArray(),
    ArrayMaxSize(MAX_TOOLS),
    IsString({ each: true }),
  );

/** POST /studio/api/skills. Server-owned fields (id, owner_id, is_system, created_at, updated_at) are unknown here → 400. */
export class CreateSkillDto {
  @NameField('Write a PRD') name: string;
  @PromptField() description?: string;
  @PromptField('Markdown prompt overlay added to the system prompt of agents that use this skill') prompt_md?: string;
  @ToolAllowlistField() tool_allowlist?: string[];
  @ApprovalListField() tools_requiring_approval?: string[];

  @ApiPropertyOptional({
    maxLength: MAX_ARTIFACT_HINT,
    example: 'docs/prd.md',
    description: 'where this skill usually writes its output',
  })
  @Optional()
  @IsString()
  @MaxLength(MAX_ARTIFACT_HINT)
  artifact_hint?: string;
}

/** PUT /studio/api/skills/{id}: any subset of the create fields; only the fields sent change. */
export class UpdateSkillDto extends PartialType(CreateSkillDto, { skipNullProperties: false }) {}

export class SkillView {
  @ApiProperty() id: number;
  @ApiProperty({ type: Number, nullable: true, description: 'null for system records' }) owner_id: number | null;
  @ApiProperty() is_system: boolean;
  @ApiProperty() name: string;
  @ApiProperty() description: string;
  @ApiProperty() prompt_md: string;
  @ApiProperty({ type: String, isArray: true, description: TOOLS_DOC }) tool_allowlist: string[];
  @ApiProperty({ type: String, isArray: true, description: 'names from tool_allowlist whose calls wait for approval' })
  tools_requiring_approval: string[];
  @ApiProperty() artifact_hint: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
