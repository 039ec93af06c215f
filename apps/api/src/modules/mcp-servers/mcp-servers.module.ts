/** MCP tool servers: records (URL, sealed headers) whose tools the ReAct loop calls as `server/tool`. */
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { McpServer } from './mcp-server.entity';
import { McpServersController } from './mcp-servers.controller';
import { McpServersService } from './mcp-servers.service';

@Module({
  imports: [TypeOrmModule.forFeature([McpServer])],
  controllers: [McpServersController],
  providers: [McpServersService],
  exports: [McpServersService],
})
export class McpServersModule {}
