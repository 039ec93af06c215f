/** /studio/api/projects: projects and their workspace files with revisions (docs/API.md). */
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { AuthUser } from '../auth/user.entity';
import {
  CreateProjectDto,
  UpdateProjectDto,
  FileChangeView,
  FileEntryView,
  FileView,
  ProjectView,
  ReadFileQueryDto,
  RevisionView,
  WriteFileDto,
} from './dto/project.dto';
import { ProjectsService } from './projects.service';
import { WildcardPath } from './workspace-path.param';

const PATH_PARAM = {
  name: 'path',
  type: String,
  description: 'workspace path relative to the project, may contain "/" (e.g. docs/a/b.md)',
};

@ApiTags('projects')
@Controller('studio/api/projects')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @ApiOkResponse({ type: [ProjectView] })
  list(@CurrentUser() u: AuthUser) {
    return this.projects.list(u);
  }

  @Post()
  @ApiCreatedResponse({ type: ProjectView })
  create(@CurrentUser() u: AuthUser, @Body() dto: CreateProjectDto) {
    return this.projects.create(u, dto);
  }

  @Get(':slug')
  @ApiOkResponse({ type: ProjectView })
  get(@CurrentUser() u: AuthUser, @Param('slug') slug: string) {
    return this.projects.get(u, slug);
  }

  @Patch(':slug')
  @ApiOkResponse({ type: ProjectView })
  rename(@CurrentUser() u: AuthUser, @Param('slug') slug: string, @Body() dto: UpdateProjectDto) {
    return this.projects.rename(u, slug, dto);
  }

  @Delete(':slug')
  @HttpCode(204)
  @ApiNoContentResponse()
  remove(@CurrentUser() u: AuthUser, @Param('slug') slug: string) {
    return this.projects.remove(u, slug);
  }

  @Get(':slug/files')
  @ApiOkResponse({ type: [FileEntryView] })
  files(@CurrentUser() u: AuthUser, @Param('slug') slug: string) {
    return this.projects.listFiles(u, slug);
  }

  /** Declared before the file read so that a path ending in `/revisions` lists revisions (see docs/decisions/projects.md). */
  @Get(':slug/files/*path/revisions')
  @ApiParam(PATH_PARAM)
  @ApiOkResponse({ type: [RevisionView], description: 'newest first, including the deletion' })
  revisions(@CurrentUser() u: AuthUser, @Param('slug') slug: string, @WildcardPath() path: string[]) {
    return this.projects.fileRevisions(u, slug, path);
  }

  @Get(':slug/files/*path')
  @ApiParam(PATH_PARAM)
  @ApiOkResponse({ type: FileView })
  readFile(
    @CurrentUser() u: AuthUser,
    @Param('slug') slug: string,
    @WildcardPath() path: string[],
    @Query() q: ReadFileQueryDto,
  ) {
    return this.projects.readFile(u, slug, path, q.revision);
  }

  @Put(':slug/files/*path')
  @ApiParam(PATH_PARAM)
  @ApiOkResponse({ type: FileChangeView })
  writeFile(
    @CurrentUser() u: AuthUser,
    @Param('slug') slug: string,
    @WildcardPath() path: string[],
    @Body() dto: WriteFileDto,
  ) {
    return this.projects.writeFile(u, slug, path, dto.content);
  }

  @Delete(':slug/files/*path')
  @ApiParam(PATH_PARAM)
  @HttpCode(204)
  @ApiNoContentResponse()
  deleteFile(@CurrentUser() u: AuthUser, @Param('slug') slug: string, @WildcardPath() path: string[]) {
    return this.projects.deleteFile(u, slug, path);
  }
}
