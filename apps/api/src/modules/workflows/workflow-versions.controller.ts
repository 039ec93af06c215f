/** /studio/api/workflows/{id}/versions: a workflow's kept versions — list, view, restore (docs/API.md). */
import { Body, Controller, Get, HttpCode, Param, ParseIntPipe, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCookieAuth,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { DbIdPipe } from '../../platform/database/db-id';
import { CurrentUser } from '../auth/auth.decorators';
import type { AuthUser } from '../auth/user.entity';
import { RestoreVersionDto, VersionListView, VersionsQueryDto, VersionView } from './dto/workflow-version.dto';
import { SavedGraphView } from './dto/workflow.view';
import { WorkflowVersionsService } from './workflow-versions.service';

@ApiTags('workflows')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('studio/api/workflows/:id/versions')
export class WorkflowVersionsController {
  constructor(private readonly versions: WorkflowVersionsService) {}

  @Get()
  @ApiOkResponse({ type: VersionListView })
  list(@CurrentUser() user: AuthUser, @Param('id', ParseIntPipe) id: number, @Query() q: VersionsQueryDto) {
    return this.versions.list(user, id, q);
  }

  @Get(':version')
  @ApiOkResponse({ type: VersionView })
  get(
    @CurrentUser() user: AuthUser,
    @Param('id', ParseIntPipe) id: number,
    @Param('version', ParseIntPipe, new DbIdPipe('Version')) version: number,
  ) {
    return this.versions.get(user, id, version);
  }

  @Post(':version/restore')
  @HttpCode(200)
  @ApiOkResponse({ type: SavedGraphView, description: 'the restored graph, saved as a new version' })
  @ApiBadRequestResponse({ description: 'the old graph no longer fits the workflow (a stage or an agent is gone)' })
  @ApiConflictResponse({ description: 'graph.stale_version: the graph was saved since `version`' })
  restore(
    @CurrentUser() user: AuthUser,
    @Param('id', ParseIntPipe) id: number,
    @Param('version', ParseIntPipe, new DbIdPipe('Version')) version: number,
    @Body() dto: RestoreVersionDto,
  ) {
    return this.versions.restore(user, id, version, dto);
  }
}
