/** /studio/api/projects: projects and their workspace files with revisions (SPEC §5). */
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { DomainError } from '../../platform/errors/domain-error';
import { CurrentUser } from '../auth/auth.decorators';
import type { AuthUser } from '../auth/user.entity';
import { CreateProjectDto, FileChangeView, FileEntryView, FileView, ProjectView, WriteFileDto } from './dto/project.dto';
import { ProjectsService } from './projects.service';
import { WorkspaceService } from './workspace.service';

/** `*path` arrives as segments (Express 5); a trailing `revisions` segment after a path means the listing. */
function splitPath(raw: unknown): { path: string; revisions: boolean } {
  const segs = Array.isArray(raw) ? raw.map(String) : String(raw ?? '').split('/');
  if (segs.length > 1 && segs[segs.length - 1] === 'revisions') return { path: segs.slice(0, -1).join('/'), revisions: true };
  return { path: segs.join('/'), revisions: false };
}

function revisionParam(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 2_147_483_647) throw new DomainError('validation', 'revision must be a positive integer', [{ field: 'revision', message: 'must be a positive integer' }]);
  return n;
}

@ApiTags('projects')
@Controller('studio/api/projects')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService, private readonly workspace: WorkspaceService) {}

  @Get() @ApiOkResponse({ type: [ProjectView] })
  list(@CurrentUser() u: AuthUser) { return this.projects.list(u); }

  @Post() @ApiCreatedResponse({ type: ProjectView })
  create(@CurrentUser() u: AuthUser, @Body() dto: CreateProjectDto) { return this.projects.create(u, dto); }

  @Get(':slug') @ApiOkResponse({ type: ProjectView })
  get(@CurrentUser() u: AuthUser, @Param('slug') slug: string) { return this.projects.findOwned(u, slug); }

  @Delete(':slug') @HttpCode(204) @ApiNoContentResponse()
  remove(@CurrentUser() u: AuthUser, @Param('slug') slug: string) { return this.projects.remove(u, slug); }

  @Get(':slug/files') @ApiOkResponse({ type: [FileEntryView] })
  async files(@CurrentUser() u: AuthUser, @Param('slug') slug: string) {
    const p = await this.projects.findOwned(u, slug);
    return this.workspace.list(p.id);
  }

  @Get(':slug/files/*path')
  @ApiParam({ name: 'path', description: 'workspace path; a trailing /revisions lists the revisions of that path' })
  @ApiQuery({ name: 'revision', required: false, description: 'read an earlier revision' })
  @ApiOkResponse({ type: FileView, description: 'the file, or [RevisionView] for …/revisions' })
  async readFile(@CurrentUser() u: AuthUser, @Param('slug') slug: string, @Param('path') raw: unknown, @Query('revision') revision?: string) {
    const p = await this.projects.findOwned(u, slug);
    const { path, revisions } = splitPath(raw);
    if (revisions) return this.workspace.revisions(p.id, path);
    const f = await this.workspace.read(p.id, path, revisionParam(revision));
    if (!f) throw new DomainError('not_found', `File ${path} not found`);
    return f;
  }

  @Put(':slug/files/*path') @ApiParam({ name: 'path' }) @ApiOkResponse({ type: FileChangeView })
  async writeFile(@CurrentUser() u: AuthUser, @Param('slug') slug: string, @Param('path') raw: unknown, @Body() dto: WriteFileDto) {
    const p = await this.projects.findOwned(u, slug);
    return this.workspace.write(p.id, splitPath(raw).path, dto.content);
  }

  @Delete(':slug/files/*path') @ApiParam({ name: 'path' }) @HttpCode(204) @ApiNoContentResponse()
  async deleteFile(@CurrentUser() u: AuthUser, @Param('slug') slug: string, @Param('path') raw: unknown) {
    const p = await this.projects.findOwned(u, slug);
    await this.workspace.remove(p.id, splitPath(raw).path);
  }
}

