/** The product's feature modules, in the order a user meets them. */
import { AgentsModule } from './modules/agents/agents.module';
import { ChatModule } from './modules/chat/chat.module';
import { McpModule } from './modules/mcp/mcp.module';
import { McpServersModule } from './modules/mcp-servers/mcp-servers.module';
import { ModelsModule } from './modules/models/models.module';
import { ProjectsModule } from './modules/projects/projects.module';
import { RuntimeModule } from './modules/runtime/runtime.module';
import { SkillsModule } from './modules/skills/skills.module';
import { WorkflowsModule } from './modules/workflows/workflows.module';

export const FEATURE_MODULES = [
  ModelsModule,
  McpServersModule,
  SkillsModule,
  AgentsModule,
  WorkflowsModule,
  ProjectsModule,
  RuntimeModule,
  ChatModule,
  McpModule,
];
