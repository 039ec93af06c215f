import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsString,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';
import { Optional } from './optional';
import { DOMAIN_PATTERN, MAX_NAME, MAX_STAGES, MAX_TEXT, SLUG_PATTERN, STAGE_PATTERN } from '../workflow-rules';

/** POST /studio/api/workflows. Server-owned fields (id, owner_id, is_system, version, times) are unknown here → 400. */
export class CreateWorkflowDto {
  @ApiProperty({ maxLength: MAX_NAME, example: 'Mobile app launch' })
  @IsString()
  @Length(1, MAX_NAME)
  @Matches(/\S/, { message: 'name must not be blank' })
  name: string;

  @ApiPropertyOptional({
    pattern: SLUG_PATTERN.source,
    description: 'Unique per owner; derived from the name when absent.',
  })
  @Optional()
  @IsString()
  @Matches(SLUG_PATTERN, { message: 'slug must be 1–64 lowercase letters, digits or "-"' })
  slug?: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT })
  @Optional()
  @IsString()
  @MaxLength(MAX_TEXT)
  description?: string;

  @ApiPropertyOptional({
    pattern: DOMAIN_PATTERN.source,
    example: 'pdlc',
    description: '`pdlc`, `sdlc` or a custom domain. Absent: `pdlc`, or `custom` when `stages` are given.',
  })
  @Optional()
  @IsString()
  @Matches(DOMAIN_PATTERN, { message: 'domain must be 1–64 lowercase letters, digits or "-"' })
  domain?: string;

  @ApiPropertyOptional({
    type: [String],
    minItems: 1,
    maxItems: MAX_STAGES,
    uniqueItems: true,
    description: "Ordered stage names; defaults to the domain's stages (pdlc, sdlc); required for a custom domain.",
  })
  @Optional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_STAGES)
  @ArrayUnique({ message: 'stages must be unique' })
  @IsString({ each: true })
  @Matches(STAGE_PATTERN, { each: true, message: 'each stage must be 1–64 lowercase letters, digits, "_" or "-"' })
  stages?: string[];
}
