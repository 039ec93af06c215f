import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsIn, IsInt, IsNumber, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';

export const PROVIDERS = ['vendor_a', 'vendor_b', 'custom'] as const;
export const MAX_LABEL = 200;
export const MAX_MODEL_ID = 200;
export const MAX_API_BASE = 2048;
export const MAX_API_KEY = 4096;
export const MAX_TOKENS = 200_000;

/**
 * POST /studio/api/models. `api_key` is write-only: stored sealed, never returned.
 * Server-owned fields (id, owner_id, is_system, created_at, updated_at) are unknown here → 400.
 */
export class CreateModelDto {
  @ApiProperty({ maxLength: MAX_LABEL, example: 'Local Llama' })
  @IsString()
  @Length(1, MAX_LABEL)
  @Matches(/\S/, { message: 'label must not be blank' })
  label: string;

  @ApiProperty({
    enum: PROVIDERS,
    description: 'vendor_a = OpenAI API, vendor_b = Anthropic Messages API, custom = OpenAI-compatible api_base',
  })
  @IsIn(PROVIDERS, { message: 'provider must be one of vendor_a, vendor_b, custom' })
  provider: (typeof PROVIDERS)[number];

  @ApiProperty({ maxLength: MAX_MODEL_ID, example: 'llama3.1:8b', description: "the provider's model name" })
  @IsString()
  @Length(1, MAX_MODEL_ID)
  @Matches(/\S/, { message: 'model_id must not be blank' })
  model_id: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_API_BASE,
    example: 'http://127.0.0.1:11434/v1',
    description: 'http(s) URL, checked against MODEL_HOSTS when saved; required for custom',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_API_BASE)
  api_base?: string | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 2,
    description: 'null = the provider default',
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(2)
  temperature?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: MAX_TOKENS,
    description: 'null = the provider default',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_TOKENS)
  max_tokens?: number | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    writeOnly: true,
    maxLength: MAX_API_KEY,
    description:
      'write-only, stored encrypted; records show has_api_key. On update: absent keeps it, null or "" clears it',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_API_KEY)
  api_key?: string | null;
}

/** PUT /studio/api/models/{id}: any subset of the create fields; only the fields sent change. */
export class UpdateModelDto extends PartialType(CreateModelDto, { skipNullProperties: false }) {}

export class ModelView {
  @ApiProperty() id: number;
  @ApiProperty({ type: Number, nullable: true, description: 'null for system records' }) owner_id: number | null;
  @ApiProperty() is_system: boolean;
  @ApiProperty() label: string;
  @ApiProperty({ enum: PROVIDERS }) provider: string;
  @ApiProperty() model_id: string;
  @ApiProperty({ type: String, nullable: true }) api_base: string | null;
  @ApiProperty({ type: Number, nullable: true }) temperature: number | null;
  @ApiProperty({ type: Number, nullable: true }) max_tokens: number | null;
  @ApiProperty({ description: 'whether an API key is stored (the key itself is never returned)' }) has_api_key: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
