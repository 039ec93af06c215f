/** /studio/api/skills: prompt overlays with tool allowlists (docs/API.md). */
import { Body, Controller, Delete, Get, HttpCode, Param, ParseIntPipe, Post, Put } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { AuthUser } from '../auth/user.entity';
import { CreateSkillDto, SkillView, UpdateSkillDto } from './dto/skill.dto';
import { SkillsService } from './skills.service';

@ApiTags('skills')
@Controller('studio/api/skills')
export class SkillsController {
  constructor(private readonly skills: SkillsService) {}

  @Get()
  @ApiOkResponse({ type: [SkillView], description: 'own + system skills, newest first' })
  list(@CurrentUser() u: AuthUser) {
    return this.skills.list(u);
  }

  @Post()
  @ApiCreatedResponse({ type: SkillView })
  create(@CurrentUser() u: AuthUser, @Body() dto: CreateSkillDto) {
    return this.skills.create(u, dto);
  }

  @Get(':id')
  @ApiOkResponse({ type: SkillView })
  get(@CurrentUser() u: AuthUser, @Param('id', ParseIntPipe) id: number) {
    return this.skills.get(u, id);
  }

  @Put(':id')
  @ApiOkResponse({ type: SkillView, description: 'partial bodies allowed; system records are 403 (clone it)' })
  update(@CurrentUser() u: AuthUser, @Param('id', ParseIntPipe) id: number, @Body() dto: UpdateSkillDto) {
    return this.skills.update(u, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  @ApiConflictResponse({ description: 'agents use the skill (named in the detail)' })
  remove(@CurrentUser() u: AuthUser, @Param('id', ParseIntPipe) id: number) {
    return this.skills.remove(u, id);
  }
}
