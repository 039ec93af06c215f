/** Workflows (packs): stages, the relational graph, clone, export/import, the seeded PDLC pack. */
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WorkflowEdge } from './workflow-edge.entity';
import { WorkflowNode } from './workflow-node.entity';
import { Workflow } from './workflow.entity';

@Module({ imports: [TypeOrmModule.forFeature([Workflow, WorkflowNode, WorkflowEdge])], exports: [TypeOrmModule] })
export class WorkflowsModule {}
