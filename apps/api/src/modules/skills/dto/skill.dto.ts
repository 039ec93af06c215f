import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { TOOL_NAMES } from '../../runtime/runtime.types';

export const MAX_PROMPT = 65536;

export class CreateSkillDto {
  @ApiProperty({ maxLength: 200 }) @IsString() @Length(1, 200) name: string;
  @ApiPropertyOptional({ maxLength: MAX_PROMPT }) @IsOptional() @IsString() @MaxLength(MAX_PROMPT) description?: string;
  @ApiPropertyOptional({ maxLength: MAX_PROMPT, description: 'Markdown prompt overlay' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_PROMPT)
  prompt_md?: string;
  @ApiPropertyOptional({ type: [String], enum: TOOL_NAMES })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(16)
  @IsIn(TOOL_NAMES as unknown as string[], { each: true, message: `each tool must be one of ${TOOL_NAMES.join(', ')}` })
  tool_allowlist?: string[];
  @ApiPropertyOptional({ maxLength: 512, description: 'where this skill usually writes its output' })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  artifact_hint?: string;
}

export class UpdateSkillDto extends PartialType(CreateSkillDto) {}

export class SkillView {
  @ApiProperty() id: number;
  @ApiProperty({ type: Number, nullable: true }) owner_id: number | null;
  @ApiProperty() is_system: boolean;
  @ApiProperty() name: string;
  @ApiProperty() description: string;
  @ApiProperty() prompt_md: string;
  @ApiProperty({ enum: TOOL_NAMES, isArray: true }) tool_allowlist: string[];
  @ApiProperty() artifact_hint: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
