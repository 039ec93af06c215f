/**
 * The export/import document (format "service-workflow-pack", version 1), for the OpenAPI document.
 * Ids inside are document-local refs; no secrets, owners, timestamps or database ids.
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WorkflowView } from './workflow.view';

export class PackHeaderDoc {
  @ApiProperty() name: string;
  @ApiPropertyOptional({ description: 'a wish: made unique for the importer' }) slug?: string;
  @ApiPropertyOptional() description?: string;
  @ApiProperty() domain: string;
  @ApiProperty({ type: [String] }) stages: string[];
}

export class PackModelDoc {
  @ApiProperty({ example: 'model-1' }) ref: string;
  @ApiProperty() label: string;
  @ApiProperty({ enum: ['vendor_a', 'vendor_b', 'custom'] }) provider: string;
  @ApiProperty() model_id: string;
  @ApiPropertyOptional({ type: String, nullable: true }) api_base?: string | null;
  @ApiPropertyOptional({ type: Number, nullable: true }) temperature?: number | null;
  @ApiPropertyOptional({ type: Number, nullable: true }) max_tokens?: number | null;
}

export class PackSkillDoc {
  @ApiProperty({ example: 'skill-1' }) ref: string;
  @ApiProperty() name: string;
  @ApiPropertyOptional() description?: string;
  @ApiPropertyOptional() prompt_md?: string;
  @ApiPropertyOptional({ type: [String] }) tool_allowlist?: string[];
  @ApiPropertyOptional({ type: [String], description: 'names from tool_allowlist whose calls wait for approval' })
  tools_requiring_approval?: string[];
  @ApiPropertyOptional() artifact_hint?: string;
}

export class PackAgentDoc {
  @ApiProperty({ example: 'agent-1' }) ref: string;
  @ApiProperty() name: string;
  @ApiPropertyOptional() role?: string;
  @ApiPropertyOptional() system_prompt?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'a models[].ref, or null = the server default' })
  model_ref?: string | null;
  @ApiPropertyOptional({ type: [String], description: 'skills[].ref values' }) skill_refs?: string[];
  @ApiPropertyOptional({ type: [String] }) tool_allowlist?: string[];
  @ApiPropertyOptional({ type: [String], description: 'names from tool_allowlist whose calls wait for approval' })
  tools_requiring_approval?: string[];
  @ApiPropertyOptional() max_iterations?: number;
}

export class PackNodeDoc {
  @ApiProperty() node_key: string;
  @ApiProperty({ enum: ['agent', 'gate', 'branch'] }) type: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'an agents[].ref for agent nodes' }) agent_ref?:
    string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) stage_label?: string | null;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) config?: Record<string, unknown>;
  @ApiPropertyOptional() position_x?: number;
  @ApiPropertyOptional() position_y?: number;
}

export class PackEdgeDoc {
  @ApiProperty() from_node: string;
  @ApiProperty() to_node: string;
  @ApiPropertyOptional({ type: String, nullable: true }) condition?: string | null;
}

export class PackDocumentView {
  @ApiProperty({ enum: ['service-workflow-pack'] }) format: 'service-workflow-pack';
  @ApiProperty({ enum: [1] }) version: 1;
  @ApiProperty({ type: PackHeaderDoc }) pack: PackHeaderDoc;
  @ApiProperty({ type: [PackModelDoc] }) models: PackModelDoc[];
  @ApiProperty({ type: [PackSkillDoc] }) skills: PackSkillDoc[];
  @ApiProperty({ type: [PackAgentDoc] }) agents: PackAgentDoc[];
  @ApiProperty({ type: [PackNodeDoc] }) nodes: PackNodeDoc[];
  @ApiProperty({ type: [PackEdgeDoc] }) edges: PackEdgeDoc[];
}

export class ImportCreatedView {
  @ApiProperty({ type: [Number], description: 'ids of the new models, in document order' }) models: number[];
  @ApiProperty({ type: [Number], description: 'ids of the new skills, in document order' }) skills: number[];
  @ApiProperty({ type: [Number], description: 'ids of the new agents, in document order' }) agents: number[];
}

export class ImportReusedView {
  @ApiProperty({ type: [Number], description: "ids of the importer's identical models used instead of copies" })
  models: number[];
  @ApiProperty({ type: [Number], description: "ids of the importer's identical skills used instead of copies" })
  skills: number[];
  @ApiProperty({ type: [Number], description: "ids of the importer's identical agents used instead of copies" })
  agents: number[];
}

export class ImportResultView {
  @ApiProperty({ type: WorkflowView }) workflow: WorkflowView;
  @ApiProperty({ type: ImportCreatedView }) created: ImportCreatedView;
  @ApiProperty({
    type: ImportReusedView,
    description: "records of the importer identical to the document's (same fields and references): reused, not copied",
  })
  reused: ImportReusedView;
  @ApiProperty({
    type: 'array',
    items: { type: 'object' },
    description: 'graph problems that did not block the import',
  })
  warnings: unknown[];
}
