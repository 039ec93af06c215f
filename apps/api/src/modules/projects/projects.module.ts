/** Projects: workflow state per project, the workspace files with revisions, /agent/workflows. */
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FileRevision } from './file-revision.entity';
import { ProjectFile } from './project-file.entity';
import { Project } from './project.entity';

@Module({ imports: [TypeOrmModule.forFeature([Project, ProjectFile, FileRevision])], exports: [TypeOrmModule] })
export class ProjectsModule {}
