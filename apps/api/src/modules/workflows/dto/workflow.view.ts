/** Response shapes of /studio/api/workflows, for the generated OpenAPI document. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class WorkflowView {
  @ApiProperty() id: number;
  @ApiProperty({ type: Number, nullable: true, description: 'null for system packs' }) owner_id: number | null;
  @ApiProperty() is_system: boolean;
  @ApiProperty() name: string;
  @ApiProperty({ pattern: '^[a-z0-9-]{1,64}$' }) slug: string;
  @ApiProperty() description: string;
  @ApiProperty({ example: 'pdlc' }) domain: string;
  @ApiProperty({ type: [String] }) stages: string[];
  @ApiProperty({ description: 'Bumped on every graph save.' }) version: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class GraphNodeView {
  @ApiProperty({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'unique in the graph; "start" is reserved' })
  node_key: string;
  @ApiProperty({ enum: ['agent', 'gate', 'branch'] }) type: 'agent' | 'gate' | 'branch';
  @ApiProperty({ type: Number, nullable: true, description: 'required for agent nodes, null otherwise' }) agent_id:
    number | null;
  @ApiProperty({ type: String, nullable: true, description: "one of the pack's stages" }) stage_label: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, description: '`artifact`: a relative workspace path' })
  config: Record<string, unknown>;
  @ApiProperty() position_x: number;
  @ApiProperty() position_y: number;
}

export class GraphEdgeView {
  @ApiProperty({ description: 'a node_key, or "start"' }) from_node: string;
  @ApiProperty() to_node: string;
  @ApiProperty({ type: String, nullable: true, description: 'condition expression; null = default edge' }) condition:
    string | null;
}

export class WorkflowDetailView extends WorkflowView {
  @ApiProperty({ type: [GraphNodeView] }) nodes: GraphNodeView[];
  @ApiProperty({ type: [GraphEdgeView] }) edges: GraphEdgeView[];
}

export class GraphView {
  @ApiProperty({ type: [GraphNodeView] }) nodes: GraphNodeView[];
  @ApiProperty({ type: [GraphEdgeView] }) edges: GraphEdgeView[];
  @ApiProperty() version: number;
}

export class GraphWarningView {
  @ApiProperty({ example: 'nodes[3]' }) field: string;
  @ApiPropertyOptional() node_key?: string;
  @ApiProperty() message: string;
}

export class SavedGraphView extends GraphView {
  @ApiProperty({ type: [GraphWarningView], description: 'problems that do not block saving' })
  warnings: GraphWarningView[];
}

/**
 * PUT /studio/api/workflows/{id}/graph. Documentation only: the body is checked by `validateGraph`
 * (shared with the studio canvas), so the controller reads it as a plain object.
 */
export class SaveGraphDto {
  @ApiProperty({ type: [GraphNodeView], maxItems: 2000 }) nodes: GraphNodeView[];
  @ApiProperty({ type: [GraphEdgeView], maxItems: 5000 }) edges: GraphEdgeView[];
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: 'the version this edit started from; a stale one → 409',
  })
  version?: number | null;
}
