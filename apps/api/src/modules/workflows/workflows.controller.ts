/** /studio/api/workflows: packs, their graphs, clone, export and import (docs/API.md). */
import { Body, Controller, Delete, Get, HttpCode, Param, ParseIntPipe, Post, Put } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConflictResponse,
  ApiCookieAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { AuthUser } from '../auth/user.entity';
import { CloneWorkflowDto } from './dto/clone-workflow.dto';
import { CreateWorkflowDto } from './dto/create-workflow.dto';
import { ImportResultView, PackDocumentView } from './dto/pack-document.view';
import { UpdateWorkflowDto } from './dto/update-workflow.dto';
import { GraphView, SavedGraphView, SaveGraphDto, WorkflowDetailView, WorkflowView } from './dto/workflow.view';
import { WorkflowTransferService } from './workflow-transfer.service';
import { WorkflowsService } from './workflows.service';

@ApiTags('workflows')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('studio/api/workflows')
export class WorkflowsController {
  constructor(
    private readonly workflows: WorkflowsService,
    private readonly transfer: WorkflowTransferService,
  ) {}

  @Get()
  @ApiOkResponse({ type: [WorkflowView], description: 'own + system packs, newest first' })
  list(@CurrentUser() user: AuthUser) {
    return this.workflows.list(user);
  }

  @Post()
  @ApiCreatedResponse({ type: WorkflowView })
  @ApiConflictResponse({ description: 'the slug is already used by one of your workflows' })
  create(@CurrentUser() user: AuthUser, @Body() dto: CreateWorkflowDto) {
    return this.workflows.create(user, dto);
  }

  @Post('import')
  @ApiBody({ type: PackDocumentView, description: 'a document from export (≤ 8 MiB)' })
  @ApiCreatedResponse({ type: ImportResultView })
  importPack(@CurrentUser() user: AuthUser, @Body() doc: Record<string, unknown>) {
    return this.transfer.importPack(user, doc);
  }

  @Get(':id')
  @ApiOkResponse({ type: WorkflowDetailView })
  get(@CurrentUser() user: AuthUser, @Param('id', ParseIntPipe) id: number) {
    return this.workflows.get(user, id);
  }

  @Put(':id')
  @ApiOkResponse({ type: WorkflowView })
  update(@CurrentUser() user: AuthUser, @Param('id', ParseIntPipe) id: number, @Body() dto: UpdateWorkflowDto) {
    return this.workflows.update(user, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  @ApiConflictResponse({ description: 'projects are bound to the workflow (the detail names them)' })
  remove(@CurrentUser() user: AuthUser, @Param('id', ParseIntPipe) id: number) {
    return this.workflows.remove(user, id);
  }

  @Get(':id/graph')
  @ApiOkResponse({ type: GraphView })
  getGraph(@CurrentUser() user: AuthUser, @Param('id', ParseIntPipe) id: number) {
    return this.workflows.getGraph(user, id);
  }

  @Put(':id/graph')
  @ApiBody({ type: SaveGraphDto })
  @ApiOkResponse({ type: SavedGraphView })
  @ApiConflictResponse({ description: 'graph.stale_version: the graph was saved since `version`' })
  saveGraph(
    @CurrentUser() user: AuthUser,
    @Param('id', ParseIntPipe) id: number,
    @Body() body: Record<string, unknown>,
  ) {
    return this.workflows.saveGraph(user, id, body);
  }

  @Post(':id/clone')
  @ApiCreatedResponse({ type: WorkflowView })
  clone(@CurrentUser() user: AuthUser, @Param('id', ParseIntPipe) id: number, @Body() dto: CloneWorkflowDto) {
    return this.workflows.clone(user, id, dto);
  }

  @Post(':id/export')
  @HttpCode(200)
  @ApiOkResponse({ type: PackDocumentView })
  exportPack(@CurrentUser() user: AuthUser, @Param('id', ParseIntPipe) id: number) {
    return this.transfer.exportPack(user, id);
  }
}
