/** Workflow versions: the list query, the restore body and the response shapes (docs/API.md, "Workflow versions"). */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_DB_ID } from '../../../platform/database/db-id';
import { GraphEdgeView, GraphNodeView } from './workflow.view';

const int = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;

export const MAX_VERSIONS_PAGE = 100;

export class VersionsQueryDto {
  @ApiPropertyOptional({ description: 'a version number: list the versions before it' })
  @IsOptional()
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_DB_ID)
  before?: number;
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_VERSIONS_PAGE, default: 50 })
  @IsOptional()
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_VERSIONS_PAGE)
  limit?: number;
}

export class RestoreVersionDto {
  @ApiPropertyOptional({
    description: 'the version the editor has loaded: when the graph was saved since, `409 graph.stale_version`',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_DB_ID)
  version?: number;
}

export class VersionSummaryView {
  @ApiProperty() version: number;
  @ApiProperty({ format: 'date-time', description: 'when this version was saved (or first kept)' }) saved_at: string;
  @ApiProperty() node_count: number;
  @ApiProperty() edge_count: number;
  @ApiProperty({ description: 'the workflow’s current version' }) current: boolean;
}

export class VersionListView {
  @ApiProperty({ type: [VersionSummaryView], description: 'newest first' }) versions: VersionSummaryView[];
  @ApiProperty({ type: Number, nullable: true, description: 'pass as `before` for the next page' })
  next_before: number | null;
}

export class VersionView extends VersionSummaryView {
  @ApiProperty({ type: [GraphNodeView] }) nodes: GraphNodeView[];
  @ApiProperty({ type: [GraphEdgeView] }) edges: GraphEdgeView[];
}
