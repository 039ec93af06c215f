/** /studio/api/agents: a model, skills, a role and a prompt (docs/API.md). */
import { Body, Controller, Delete, Get, HttpCode, Param, ParseIntPipe, Post, Put } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { AuthUser } from '../auth/user.entity';
import { AgentsService } from './agents.service';
import { AgentView, CreateAgentDto, UpdateAgentDto } from './dto/agent.dto';

@ApiTags('agents')
@Controller('studio/api/agents')
export class AgentsController {
  constructor(private readonly agents: AgentsService) {}

  @Get()
  @ApiOkResponse({ type: [AgentView], description: 'own + system agents, newest first' })
  list(@CurrentUser() u: AuthUser) {
    return this.agents.list(u);
  }

  @Post()
  @ApiCreatedResponse({ type: AgentView })
  create(@CurrentUser() u: AuthUser, @Body() dto: CreateAgentDto) {
    return this.agents.create(u, dto);
  }

  @Get(':id')
  @ApiOkResponse({ type: AgentView })
  get(@CurrentUser() u: AuthUser, @Param('id', ParseIntPipe) id: number) {
    return this.agents.get(u, id);
  }

  @Put(':id')
  @ApiOkResponse({ type: AgentView, description: 'partial bodies allowed; system records are 403 (clone it)' })
  update(@CurrentUser() u: AuthUser, @Param('id', ParseIntPipe) id: number, @Body() dto: UpdateAgentDto) {
    return this.agents.update(u, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  @ApiConflictResponse({ description: 'workflow nodes use the agent (named in the detail)' })
  remove(@CurrentUser() u: AuthUser, @Param('id', ParseIntPipe) id: number) {
    return this.agents.remove(u, id);
  }
}
