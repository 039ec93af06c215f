/** /studio/api/models: bound language-model endpoints (docs/API.md). */
import { Body, Controller, Delete, Get, HttpCode, Param, ParseIntPipe, Post, Put } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { AuthUser } from '../auth/user.entity';
import { CreateModelDto, ModelView, UpdateModelDto } from './dto/model.dto';
import { ModelsService } from './models.service';

@ApiTags('models')
@Controller('studio/api/models')
export class ModelsController {
  constructor(private readonly models: ModelsService) {}

  @Get()
  @ApiOkResponse({ type: [ModelView], description: 'own + system models, newest first' })
  list(@CurrentUser() u: AuthUser) {
    return this.models.list(u);
  }

  @Post()
  @ApiCreatedResponse({ type: ModelView })
  create(@CurrentUser() u: AuthUser, @Body() dto: CreateModelDto) {
    return this.models.create(u, dto);
  }

  @Get(':id')
  @ApiOkResponse({ type: ModelView })
  get(@CurrentUser() u: AuthUser, @Param('id', ParseIntPipe) id: number) {
    return this.models.get(u, id);
  }

  @Put(':id')
  @ApiOkResponse({ type: ModelView, description: 'partial bodies allowed; system records are 403 (clone it)' })
  update(@CurrentUser() u: AuthUser, @Param('id', ParseIntPipe) id: number, @Body() dto: UpdateModelDto) {
    return this.models.update(u, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  @ApiConflictResponse({ description: 'agents use the model (named in the detail)' })
  remove(@CurrentUser() u: AuthUser, @Param('id', ParseIntPipe) id: number) {
    return this.models.remove(u, id);
  }
}
