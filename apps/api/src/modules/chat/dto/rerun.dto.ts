import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { MAX_MESSAGE } from './chat.dto';

/** `POST /agent/runs/{id}/rerun` (docs/API.md "Rerun from a node"). */
export class RerunDto {
  @ApiProperty({ description: 'a node the original run visited; the new run starts there', maxLength: 64 })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  node_key: string;

  @ApiPropertyOptional({ maxLength: MAX_MESSAGE, description: "the user message (default: the original run's)" })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_MESSAGE)
  message?: string;

  @ApiPropertyOptional({
    description: 'put back, as new revisions, the files the original run changed at or after the node',
  })
  @IsOptional()
  @IsBoolean()
  restore_workspace?: boolean;
}

export class RerunAcceptedView {
  @ApiProperty({ format: 'uuid', description: 'the new run' }) run_id: string;
}
