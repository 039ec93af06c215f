/** Projects: workflow state per project, the workspace files with revisions, /agent/workflows. */
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Run } from '../chat/run.entity';
import { Workflow } from '../workflows/workflow.entity';
import { AgentWorkflowsController } from './agent-workflows.controller';
import { FileRevision } from './file-revision.entity';
import { ProjectFile } from './project-file.entity';
import { Project } from './project.entity';
import { ProjectsController } from './projects.controller';
import { ProjectsService } from './projects.service';
import { WorkspaceService } from './workspace.service';

@Module({
  // Workflow: packs are read (visibility) for binding; Run: a project with a running turn is not deleted.
  imports: [TypeOrmModule.forFeature([Project, ProjectFile, FileRevision, Workflow, Run])],
  controllers: [ProjectsController, AgentWorkflowsController],
  providers: [ProjectsService, WorkspaceService],
  exports: [ProjectsService, WorkspaceService, TypeOrmModule],
})
export class ProjectsModule {}
