/**
 * Packs as an MCP server (docs/decisions/mcp.md): every POST to `/mcp` is answered by a fresh SDK
 * `McpServer` bound to the caller, over the SDK's Streamable HTTP transport in stateless mode with JSON
 * responses — no session to keep, so any instance of the service can answer any request.
 */
import { Inject, Injectable } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import type { AuthUser } from '../auth/user.entity';
import { ChatService } from '../chat/chat.service';
import { ProjectsService } from '../projects/projects.service';
import { registerPackTools } from './pack-mcp-tools';

@Injectable()
export class PackMcpService {
  constructor(
    private readonly chat: ChatService,
    private readonly projects: ProjectsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async handle(user: AuthUser, req: Request, res: Response): Promise<void> {
    const server = new McpServer(
      { name: 'agentic-workflow-service', version: this.config.version },
      {
        instructions:
          'Drive the packs (staged agent workflows) of your projects: list_projects, send_message, approve_gate, read_file.',
      },
    );
    registerPackTools(server, user, { chat: this.chat, projects: this.projects });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }
}
