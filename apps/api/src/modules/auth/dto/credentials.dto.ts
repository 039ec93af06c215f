import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, Length, Matches } from 'class-validator';

export class CredentialsDto {
  @ApiProperty({ example: 'ada', pattern: '^[A-Za-z0-9_.@-]{1,64}$' })
  @IsString()
  @Matches(/^[A-Za-z0-9_.@-]{1,64}$/, { message: 'username must be 1–64 letters, digits, or _ . @ -' })
  username: string;

  @ApiProperty({ minLength: 8, maxLength: 256, format: 'password', writeOnly: true })
  @IsString()
  @Length(8, 256, { message: 'password must be 8–256 characters' })
  password: string;
}

/** Login accepts any string lengths so a wrong password never becomes a 400 that reveals the rules. */
export class LoginDto {
  @ApiProperty() @IsString() @Length(1, 256) username: string;
  @ApiProperty({ format: 'password', writeOnly: true }) @IsString() @Length(1, 1024) password: string;
}

export class CreateUserDto extends CredentialsDto {
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() is_admin?: boolean;
}

/** PATCH /studio/api/users/{id} (admins): a new password (the user's sessions and tokens end), or the admin role. */
export class UpdateUserDto {
  @ApiPropertyOptional({ minLength: 8, maxLength: 256, format: 'password', writeOnly: true })
  @IsOptional()
  @IsString()
  @Length(8, 256, { message: 'password must be 8–256 characters' })
  password?: string;

  @ApiPropertyOptional() @IsOptional() @IsBoolean() is_admin?: boolean;
}

export class CreateTokenDto {
  @ApiProperty({ example: 'ci' }) @IsString() @Length(1, 200) name: string;
}

export class SetupStateView {
  @ApiProperty({ description: 'true while no user exists: POST /auth/setup will create the owner account' })
  needed: boolean;
}

export class UserView {
  @ApiProperty() id: number;
  @ApiProperty() username: string;
  @ApiProperty() is_admin: boolean;
}

export class UserRecordView extends UserView {
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class TokenView {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) last_used_at: string | null;
}

export class CreatedTokenView extends TokenView {
  @ApiProperty({ description: 'Shown once; only a hash is stored.' }) token: string;
}
