import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Length, Max, MaxLength, Min } from 'class-validator';
import { TOOL_NAMES } from '../../runtime/runtime.types';
import { MAX_PROMPT } from '../../skills/dto/skill.dto';

export class CreateAgentDto {
  @ApiProperty({ maxLength: 200 }) @IsString() @Length(1, 200) name: string;
  @ApiPropertyOptional({ maxLength: 200, example: 'Product designer' }) @IsOptional() @IsString() @MaxLength(200) role?: string;
  @ApiPropertyOptional({ maxLength: MAX_PROMPT }) @IsOptional() @IsString() @MaxLength(MAX_PROMPT) system_prompt?: string;
  @ApiPropertyOptional({ type: Number, nullable: true, description: 'a model id, or null for the server default model' })
  @IsOptional()
  @IsInt()
  @Min(1)
  model_id?: number | null;
  @ApiPropertyOptional({ type: [Number], maxItems: 64 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsInt({ each: true })
  @Min(1, { each: true })
  skill_ids?: number[];
  @ApiPropertyOptional({ type: [String], enum: TOOL_NAMES })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(16)
  @IsIn(TOOL_NAMES as unknown as string[], { each: true, message: `each tool must be one of ${TOOL_NAMES.join(', ')}` })
  tool_allowlist?: string[];
  @ApiPropertyOptional({ minimum: 1, maximum: 50, description: 'model calls per turn; 8 when absent' }) @IsOptional() @IsInt() @Min(1) @Max(50) max_iterations?: number;
}

export class UpdateAgentDto extends PartialType(CreateAgentDto) {}

export class AgentView {
  @ApiProperty() id: number;
  @ApiProperty({ type: Number, nullable: true }) owner_id: number | null;
  @ApiProperty() is_system: boolean;
  @ApiProperty() name: string;
  @ApiProperty() role: string;
  @ApiProperty() system_prompt: string;
  @ApiProperty({ type: Number, nullable: true }) model_id: number | null;
  @ApiProperty({ type: [Number] }) skill_ids: number[];
  @ApiProperty({ enum: TOOL_NAMES, isArray: true }) tool_allowlist: string[];
  @ApiProperty() max_iterations: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
