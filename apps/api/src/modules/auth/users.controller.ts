import { Body, Controller, Delete, Get, HttpCode, Param, ParseIntPipe, Patch, Post, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { DbIdPipe } from '../../platform/database/db-id';
import { AdminOnly, CurrentUser } from './auth.decorators';
import { AuthService } from './auth.service';
import { CreateUserDto, UpdateUserDto, UserRecordView, UserView } from './dto/credentials.dto';
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

  @Patch(':id')
  @ApiOkResponse({ type: UserRecordView })
  @ApiConflictResponse({ description: 'an admin cannot take away their own admin role' })
  update(
    @CurrentUser() actor: AuthUser,
    @Param('id', ParseIntPipe, new DbIdPipe('User')) id: number,
    @Body() dto: UpdateUserDto,
  ) {
    return this.auth.updateUser(actor, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  @ApiQuery({
    name: 'cascade',
    required: false,
    enum: ['true'],
    description: 'also delete the projects, packs, agents, skills and models the user owns',
  })
  @ApiConflictResponse({
    description: '`user.owns_records` (named in the detail) without `cascade=true`, or a turn of theirs is running',
  })
  remove(
    @CurrentUser() actor: AuthUser,
    @Param('id', ParseIntPipe, new DbIdPipe('User')) id: number,
    @Query('cascade') cascade?: string,
  ) {
    return this.auth.deleteUser(actor, id, cascade === 'true' || cascade === '1');
  }
}
