import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { MAX_SERVER_NAME, SERVER_NAME_PATTERN } from '../mcp-tool-name';

export const MAX_URL = 2048;
export const MAX_HEADERS = 16;
export const MAX_HEADER_VALUE = 4096;

/**
 * POST /studio/api/mcp-servers. `headers` is write-only: values are stored sealed and never returned
 * (records list `header_names`). Server-owned fields are unknown here → 400.
 */
export class CreateMcpServerDto {
  @ApiProperty({
    maxLength: MAX_SERVER_NAME,
    pattern: SERVER_NAME_PATTERN.source,
    example: 'docs',
    description: 'lower-case letters, digits and dashes; allowlists name its tools as name/tool; unique per owner',
  })
  @IsString()
  @Matches(SERVER_NAME_PATTERN, {
    message: 'name must be 1–40 lower-case letters, digits or dashes, starting with a letter or digit',
  })
  name: string;

  @ApiProperty({
    maxLength: MAX_URL,
    example: 'https://mcp.example.com/mcp',
    description: 'the Streamable HTTP endpoint; http(s), checked against MODEL_HOSTS when saved and on every call',
  })
  @IsString()
  @MaxLength(MAX_URL)
  url: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: MAX_HEADER_VALUE },
    nullable: true,
    writeOnly: true,
    example: { Authorization: 'Bearer …' },
    description: `write-only, at most ${MAX_HEADERS}, values stored encrypted. On update: absent keeps them, an object replaces them all, null or {} clears them`,
  })
  @IsOptional()
  @IsObject()
  headers?: Record<string, string> | null;
}

/** PUT /studio/api/mcp-servers/{id}: any subset of the create fields; only the fields sent change. */
export class UpdateMcpServerDto extends PartialType(CreateMcpServerDto, { skipNullProperties: false }) {}

export class McpServerView {
  @ApiProperty() id: number;
  @ApiProperty({ type: Number, nullable: true, description: 'null for system records' }) owner_id: number | null;
  @ApiProperty() is_system: boolean;
  @ApiProperty() name: string;
  @ApiProperty() url: string;
  @ApiProperty({ type: [String], description: 'names of the stored headers (their values are never returned)' })
  header_names: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class McpToolView {
  @ApiProperty({ description: "the tool's name on its server" }) name: string;
  @ApiProperty({ example: 'docs/search', description: 'the name allowlists use: server/tool' }) qualified_name: string;
  @ApiProperty() description: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'JSON schema of the arguments' })
  input_schema: Record<string, unknown>;
}

export class McpToolListView {
  @ApiProperty() server: string;
  @ApiProperty({ type: [McpToolView] }) tools: McpToolView[];
}
