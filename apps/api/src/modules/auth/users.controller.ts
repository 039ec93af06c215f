import { Body, Controller, Delete, Get, HttpCode, Param, ParseIntPipe, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { DbIdPipe } from '../../platform/database/db-id';
import { AdminOnly, CurrentUser } from './auth.decorators';
import { AuthService } from './auth.service';
import { CreateUserDto, UserRecordView, UserView } from './dto/credentials.dto';
import type { AuthUser } from './user.entity';

@ApiTags('users')
@AdminOnly()
@Controller('studio/api/users')
export class UsersController {
  constructor(private readonly auth: AuthService) {}

  @Get()
  @ApiOkResponse({ type: [UserRecordView] })
  list() {
    return this.auth.listUsers();
  }

  @Post()
  @ApiCreatedResponse({ type: UserView })
  create(@Body() dto: CreateUserDto) {
    return this.auth.createUser(dto.username, dto.password, dto.is_admin ?? false);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  remove(@CurrentUser() actor: AuthUser, @Param('id', ParseIntPipe, new DbIdPipe('User')) id: number) {
    return this.auth.deleteUser(actor, id);
  }
}
