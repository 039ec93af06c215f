import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';
import { Optional } from './optional';
import { MAX_NAME, SLUG_PATTERN } from '../workflow-rules';

/** POST /studio/api/workflows/{id}/clone. Name defaults to "<name> (copy)", slug is derived from the name. */
export class CloneWorkflowDto {
  @ApiPropertyOptional({ maxLength: MAX_NAME })
  @Optional()
  @IsString()
  @Length(1, MAX_NAME)
  @Matches(/\S/, { message: 'name must not be blank' })
  name?: string;

  @ApiPropertyOptional({ pattern: SLUG_PATTERN.source })
  @Optional()
  @IsString()
  @Matches(SLUG_PATTERN, { message: 'slug must be 1–64 lowercase letters, digits or "-"' })
  slug?: string;
}
