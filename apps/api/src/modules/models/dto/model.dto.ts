import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsIn, IsInt, IsNumber, IsOptional, IsString, Length, Max, MaxLength, Min } from 'class-validator';


export const PROVIDERS = ['vendor_a', 'vendor_b', 'custom'] as const;

/** POST /studio/api/models. `api_key` is write-only: stored sealed, never returned. */
export class CreateModelDto {
  @ApiProperty({ maxLength: 200, example: 'Local Llama' }) @IsString() @Length(1, 200) label: string;

  @ApiProperty({ enum: PROVIDERS, description: 'vendor_a = OpenAI API, vendor_b = Anthropic Messages API, custom = OpenAI-compatible api_base' })
  @IsIn(PROVIDERS as unknown as string[], { message: 'provider must be one of vendor_a, vendor_b, custom' })
  provider: (typeof PROVIDERS)[number];

  @ApiProperty({ maxLength: 200, example: 'llama3.1:8b' }) @IsString() @Length(1, 200) model_id: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 2048, description: 'http(s) URL; required for custom' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  api_base?: string | null;

  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 0, maximum: 2 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(2)
  temperature?: number | null;

  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 1, maximum: 200000 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(200000)
  max_tokens?: number | null;

  @ApiPropertyOptional({ type: String, nullable: true, writeOnly: true, maxLength: 4096, description: 'stored encrypted; null or "" clears it' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  api_key?: string | null;
}

export class UpdateModelDto extends PartialType(CreateModelDto) {}

export class ModelView {
  @ApiProperty() id: number;
  @ApiProperty({ type: Number, nullable: true }) owner_id: number | null;
  @ApiProperty() is_system: boolean;
  @ApiProperty() label: string;
  @ApiProperty({ enum: PROVIDERS }) provider: string;
  @ApiProperty() model_id: string;
  @ApiProperty({ type: String, nullable: true }) api_base: string | null;
  @ApiProperty({ type: Number, nullable: true }) temperature: number | null;
  @ApiProperty({ type: Number, nullable: true }) max_tokens: number | null;
  @ApiProperty() has_api_key: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

