import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_DB_ID } from '../../../platform/database/db-id';
import {
  ApprovalListField,
  MAX_NAME,
  NameField,
  Optional,
  PromptField,
  ToolAllowlistField,
  TOOLS_DOC,
} from '../../skills/dto/skill.dto';

export const MAX_SKILLS = 64;
export const MAX_ITERATIONS = 50;
export const DEFAULT_MAX_ITERATIONS = 8;

/** POST /studio/api/agents. Server-owned fields (id, owner_id, is_system, created_at, updated_at) are unknown here → 400. */
export class CreateAgentDto {
  @NameField('Writer') name: string;

  @ApiPropertyOptional({ maxLength: MAX_NAME, example: 'Product designer' })
  @Optional()
  @IsString()
  @MaxLength(MAX_NAME)
  role?: string;

  @PromptField('the first part of the system prompt; skill prompts follow it') system_prompt?: string;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'a model record visible to the caller, or null for the server default model',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_DB_ID)
  model_id?: number | null;

  @ApiPropertyOptional({
    type: [Number],
    maxItems: MAX_SKILLS,
    description: 'skill records visible to the caller; duplicates are removed, order kept',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_SKILLS)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(MAX_DB_ID, { each: true })
  skill_ids?: number[];

  @ToolAllowlistField() tool_allowlist?: string[];
  @ApprovalListField() tools_requiring_approval?: string[];

  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_ITERATIONS,
    description: `model calls per turn at most; ${DEFAULT_MAX_ITERATIONS} when absent on create`,
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(MAX_ITERATIONS)
  max_iterations?: number;
}

/** PUT /studio/api/agents/{id}: any subset of the create fields; only the fields sent change. */
export class UpdateAgentDto extends PartialType(CreateAgentDto, { skipNullProperties: false }) {}

export class AgentView {
  @ApiProperty() id: number;
  @ApiProperty({ type: Number, nullable: true, description: 'null for system records' }) owner_id: number | null;
  @ApiProperty() is_system: boolean;
  @ApiProperty() name: string;
  @ApiProperty() role: string;
  @ApiProperty() system_prompt: string;
  @ApiProperty({ type: Number, nullable: true, description: 'null = the server default model' }) model_id:
    number | null;
  @ApiProperty({ type: [Number] }) skill_ids: number[];
  @ApiProperty({ type: String, isArray: true, description: TOOLS_DOC }) tool_allowlist: string[];
  @ApiProperty({
    type: String,
    isArray: true,
    description: "names from tool_allowlist whose calls wait for approval (at run time: the agent's ∪ its skills')",
  })
  tools_requiring_approval: string[];
  @ApiProperty() max_iterations: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
