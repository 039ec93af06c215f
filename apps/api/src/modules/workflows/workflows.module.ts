/** Workflows (packs): stages, the relational graph, clone, export/import, the seeded PDLC pack. */
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Agent } from '../agents/agent.entity';
import { Model } from '../models/model.entity';
import { Project } from '../projects/project.entity';
import { Skill } from '../skills/skill.entity';
import { PdlcSeedService } from './pdlc-seed.service';
import { WorkflowEdge } from './workflow-edge.entity';
import { WorkflowNode } from './workflow-node.entity';
import { WorkflowTransferService } from './workflow-transfer.service';
import { WorkflowVersion } from './workflow-version.entity';
import { WorkflowVersionsController } from './workflow-versions.controller';
import { WorkflowVersionsService } from './workflow-versions.service';
import { Workflow } from './workflow.entity';
import { WorkflowsController } from './workflows.controller';
import { WorkflowsService } from './workflows.service';

@Module({
  // Agents, skills, models and projects are read here for references (visibility, export, delete checks).
  imports: [
    TypeOrmModule.forFeature([Workflow, WorkflowNode, WorkflowEdge, WorkflowVersion, Agent, Skill, Model, Project]),
  ],
  controllers: [WorkflowsController, WorkflowVersionsController],
  providers: [WorkflowsService, WorkflowTransferService, WorkflowVersionsService, PdlcSeedService],
  exports: [TypeOrmModule, WorkflowsService],
})
export class WorkflowsModule {}
