/** Packs as an MCP server at /mcp: list projects, send a message, approve a gate, read a file. */
import { Module } from '@nestjs/common';
import { ChatModule } from '../chat/chat.module';
import { ProjectsModule } from '../projects/projects.module';
import { McpController } from './mcp.controller';
import { PackMcpService } from './pack-mcp.service';

@Module({
  imports: [ChatModule, ProjectsModule],
  controllers: [McpController],
  providers: [PackMcpService],
})
export class McpModule {}
