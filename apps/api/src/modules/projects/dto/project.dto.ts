import { AwaitingApprovalView } from '../../chat/dto/approval.dto';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import { MAX_DB_ID } from '../../../platform/database/db-id';

const SLUG = /^[a-z0-9-]{1,64}$/;
/** Query strings arrive as text: "3" → 3; anything else stays as is and fails @IsInt. */
const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;

/** PATCH /studio/api/projects/{slug}: renames the project (the slug, its address, stays). */
export class UpdateProjectDto {
  @ApiProperty({ maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @Matches(/\S/, { message: 'name must not be blank' })
  name: string;
}

export class CreateProjectDto {
  @ApiProperty({ pattern: SLUG.source, example: 'checkout-redesign' })
  @IsString()
  @Matches(SLUG, { message: 'slug must be 1–64 lowercase letters, digits or "-"' })
  slug: string;
  @ApiPropertyOptional({ maxLength: 200 }) @IsOptional() @IsString() @Length(1, 200) name?: string;
  @ApiPropertyOptional({ type: 'integer', nullable: true, description: 'a visible pack; binds it at its first stage' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_DB_ID)
  pack_id?: number | null;
}

export class BindWorkflowDto {
  @ApiProperty({ example: 'pdlc', description: "must equal the pack's domain" })
  @IsString()
  @Length(1, 64)
  domain: string;
  @ApiProperty({ example: 'design', description: "one of the pack's stages" }) @IsString() @Length(1, 64) stage: string;
  @ApiProperty({ type: 'integer', description: 'a pack (workflow) visible to the caller' })
  @IsInt()
  @Min(1)
  @Max(MAX_DB_ID)
  pack_id: number;
}

export class ReadFileQueryDto {
  @ApiPropertyOptional({ type: 'integer', description: 'read an earlier revision of the file', minimum: 1 })
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(MAX_DB_ID)
  revision?: number;
}

export class WriteFileDto {
  @ApiProperty({ description: 'UTF-8 text, at most 1 MiB' }) @IsString() @MaxLength(1024 * 1024) content: string;
}

export class AwaitingGateView {
  @ApiProperty() node_key: string;
  @ApiProperty() stage: string;
  @ApiProperty({ type: String, nullable: true }) next_stage: string | null;
}

export class ProjectView {
  @ApiProperty() id: number;
  /** kept like every studio record (docs/API.md); always the caller's id */
  @ApiProperty() owner_id: number;
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: Number, nullable: true }) pack_id: number | null;
  @ApiProperty({ type: String, nullable: true }) domain: string | null;
  @ApiProperty({ type: String, nullable: true }) stage: string | null;
  @ApiProperty({ type: AwaitingGateView, nullable: true }) awaiting_gate: AwaitingGateView | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class WorkflowStateView {
  @ApiProperty() project_slug: string;
  @ApiProperty({ type: String, nullable: true }) domain: string | null;
  @ApiProperty({ type: String, nullable: true }) stage: string | null;
  @ApiProperty({ type: Number, nullable: true }) pack_id: number | null;
  @ApiProperty({ type: [String] }) stages: string[];
  @ApiProperty({ type: AwaitingGateView, nullable: true }) awaiting_gate: AwaitingGateView | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the run of the turn in flight on this project (resume its stream with last_event_id=<id>:0)',
  })
  running_run_id: string | null;
  @ApiProperty({
    type: AwaitingApprovalView,
    nullable: true,
    description:
      "the tool call of the project's turn that waits for a decision (its run is `awaiting_approval`); new turns get 409 until it is decided",
  })
  awaiting_approval: AwaitingApprovalView | null;
}

export class PackListItemView {
  @ApiProperty({ description: 'the pack slug' }) id: string;
  @ApiProperty() pack_id: number;
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
  @ApiProperty() domain: string;
  @ApiProperty({ type: [String] }) stages: string[];
  @ApiProperty() is_system: boolean;
}

export class PackListView {
  @ApiProperty({ type: [PackListItemView] }) workflows: PackListItemView[];
  @ApiProperty({ type: [PackListItemView], description: 'alias of workflows' }) packs: PackListItemView[];
  @ApiProperty({ type: [PackListItemView], description: 'alias of workflows' }) domains: PackListItemView[];
}

export class FileEntryView {
  @ApiProperty() path: string;
  @ApiProperty() size: number;
  @ApiProperty() revision: number;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class FileView extends FileEntryView {
  @ApiProperty() content: string;
}

export class FileChangeView {
  @ApiProperty() path: string;
  @ApiProperty({
    enum: ['added', 'modified', 'deleted', 'unchanged'],
    description: '`unchanged`: the content was the same, no revision was recorded',
  })
  change: string;
  @ApiProperty() revision: number;
}

export class RevisionView {
  @ApiProperty() revision: number;
  @ApiProperty({ enum: ['added', 'modified', 'deleted'] }) change: string;
  @ApiProperty() size: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, nullable: true }) run_id: string | null;
}
