/** /studio/api/mcp-servers: MCP tool servers agents call as `server/tool` (docs/API.md). */
import { Body, Controller, Delete, Get, HttpCode, Param, ParseIntPipe, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { AuthUser } from '../auth/user.entity';
import { CreateMcpServerDto, McpServerView, McpToolListView, UpdateMcpServerDto } from './dto/mcp-server.dto';
import { McpServersService } from './mcp-servers.service';

@ApiTags('mcp-servers')
@Controller('studio/api/mcp-servers')
export class McpServersController {
  constructor(private readonly servers: McpServersService) {}

  @Get()
  @ApiOkResponse({ type: [McpServerView], description: 'own + system servers, by name' })
  list(@CurrentUser() u: AuthUser) {
    return this.servers.list(u);
  }

  @Post()
  @ApiCreatedResponse({ type: McpServerView })
  create(@CurrentUser() u: AuthUser, @Body() dto: CreateMcpServerDto) {
    return this.servers.create(u, dto);
  }

  @Get(':id')
  @ApiOkResponse({ type: McpServerView })
  get(@CurrentUser() u: AuthUser, @Param('id', ParseIntPipe) id: number) {
    return this.servers.get(u, id);
  }

  @Put(':id')
  @ApiOkResponse({ type: McpServerView, description: 'partial bodies allowed; system records are 403' })
  update(@CurrentUser() u: AuthUser, @Param('id', ParseIntPipe) id: number, @Body() dto: UpdateMcpServerDto) {
    return this.servers.update(u, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiNoContentResponse()
  remove(@CurrentUser() u: AuthUser, @Param('id', ParseIntPipe) id: number) {
    return this.servers.remove(u, id);
  }

  @Get(':id/tools')
  @ApiOkResponse({
    type: McpToolListView,
    description: 'connects to the server and lists its tools; 502 mcp.unreachable, 504 mcp.timeout, 400 mcp.refused',
  })
  tools(@CurrentUser() u: AuthUser, @Param('id', ParseIntPipe) id: number) {
    return this.servers.listTools(u, id);
  }
}
