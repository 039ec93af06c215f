/** /agent/workflows: the pack list (public) and a project's workflow state (docs/API.md). */
import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser, OptionalUser, Public } from '../auth/auth.decorators';
import type { AuthUser } from '../auth/user.entity';
import { BindWorkflowDto, PackListView, WorkflowStateView } from './dto/project.dto';
import { ProjectsService } from './projects.service';

@ApiTags('agent')
@Controller('agent/workflows')
export class AgentWorkflowsController {
  constructor(private readonly projects: ProjectsService) {}

  @Public()
  @Get()
  @ApiOkResponse({ type: PackListView, description: 'anonymous: system packs; logged in: system + own' })
  list(@OptionalUser() u: AuthUser | null) {
    return this.projects.packList(u);
  }

  @Get(':slug')
  @ApiOkResponse({ type: WorkflowStateView })
  get(@CurrentUser() u: AuthUser, @Param('slug') slug: string) {
    return this.projects.getState(u, slug);
  }

  @Put(':slug')
  @ApiOkResponse({ type: WorkflowStateView })
  bind(@CurrentUser() u: AuthUser, @Param('slug') slug: string, @Body() dto: BindWorkflowDto) {
    return this.projects.bind(u, slug, dto);
  }
}
