/**
 * A project's workspace: files with their current content (project_files) and an append-only history
 * of every write (file_revisions). Writes lock the project row, so concurrent writers to one project
 * are serialised and the file-count limit cannot be raced past.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { DomainError } from '../../platform/errors/domain-error';
import type { FileChangeInfo, Workspace, WorkspaceEntry } from '../runtime/runtime.types';
import { FileRevision } from './file-revision.entity';
import { ProjectFile } from './project-file.entity';
import { isInside, normalizeWorkspaceDir, normalizeWorkspacePath } from './workspace-path';

export const MAX_FILE_BYTES = 1024 * 1024;
export const MAX_FILES = 10_000;
const MAX_HITS = 200;

@Injectable()
export class WorkspaceService {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async list(projectId: number, dir?: string): Promise<Array<WorkspaceEntry & { updated_at: Date }>> {
    const base = normalizeWorkspaceDir(dir);
    const rows = await this.ds.getRepository(ProjectFile).find({
      where: { project_id: projectId },
      select: { path: true, size: true, revision: true, updated_at: true },
      order: { path: 'ASC' },
    });
    return rows.filter((r) => isInside(base, r.path)).map((r) => ({ path: r.path, size: r.size, revision: r.revision, updated_at: r.updated_at }));
  }

  async read(projectId: number, path: string, revision?: number) {
    const p = normalizeWorkspacePath(path);
    if (revision !== undefined) {
      const rev = await this.ds.getRepository(FileRevision).findOneBy({ project_id: projectId, path: p, revision });
      if (!rev || rev.content === null) return null;
      return { path: p, content: rev.content, revision: rev.revision, size: rev.size, updated_at: rev.created_at };
    }
    const f = await this.ds.getRepository(ProjectFile).findOneBy({ project_id: projectId, path: p });
    return f ? { path: f.path, content: f.content, revision: f.revision, size: f.size, updated_at: f.updated_at } : null;
  }

  async write(projectId: number, path: string, content: string, runId: string | null = null): Promise<FileChangeInfo> {
    const p = normalizeWorkspacePath(path);
    if (typeof content !== 'string') throw new DomainError('validation', 'content must be a string', [{ field: 'content', message: 'must be a string' }]);
    const size = Buffer.byteLength(content, 'utf8');
    if (size > MAX_FILE_BYTES) {
      throw new DomainError('validation', `A file is at most 1 MiB; this one is ${size} bytes.`, [{ field: 'content', message: 'must be at most 1 MiB' }]);
    }
    return this.ds.transaction(async (m) => {
      await this.lockProject(m, projectId);
      const files = m.getRepository(ProjectFile);
      const existing = await files.findOneBy({ project_id: projectId, path: p });
      let revision: number;
      if (existing) {
        revision = existing.revision + 1;
        await files.update({ id: existing.id }, { content, size, revision });
      } else {
        const count = await files.countBy({ project_id: projectId });
        if (count >= MAX_FILES) throw new DomainError('conflict', `A workspace holds at most ${MAX_FILES} files.`);
        const last = await m.getRepository(FileRevision).maximum('revision', { project_id: projectId, path: p });
        revision = (last ?? 0) + 1;
        await files.insert({ project_id: projectId, path: p, content, size, revision });
      }
      const change = existing ? 'modified' : 'added';
      await m.getRepository(FileRevision).insert({ project_id: projectId, path: p, revision, change, content, size, run_id: runId });
      return { path: p, change, revision } as FileChangeInfo;
    });
  }

  async remove(projectId: number, path: string, runId: string | null = null): Promise<FileChangeInfo> {
    const p = normalizeWorkspacePath(path);
    return this.ds.transaction(async (m) => {
      await this.lockProject(m, projectId);
      const files = m.getRepository(ProjectFile);
      const existing = await files.findOneBy({ project_id: projectId, path: p });
      if (!existing) throw new DomainError('not_found', `File ${p} not found`);
      const revision = existing.revision + 1;
      await files.delete({ id: existing.id });
      await m.getRepository(FileRevision).insert({ project_id: projectId, path: p, revision, change: 'deleted', content: null, size: 0, run_id: runId });
      return { path: p, change: 'deleted', revision };
    });
  }

  async revisions(projectId: number, path: string) {
    const p = normalizeWorkspacePath(path);
    const rows = await this.ds.getRepository(FileRevision).find({
      where: { project_id: projectId, path: p },
      select: { revision: true, change: true, size: true, created_at: true, run_id: true },
      order: { revision: 'DESC' },
    });
    if (!rows.length) throw new DomainError('not_found', `File ${p} not found`);
    return rows;
  }

  async search(projectId: number, query: string, dir?: string) {
    const base = normalizeWorkspaceDir(dir);
    const needle = query.toLowerCase();
    if (!needle) return [];
    const rows: Array<{ path: string; content: string }> = await this.ds.query(
      `SELECT path, content FROM project_files WHERE project_id = $1 AND position(lower($2) in lower(content)) > 0 ORDER BY path`,
      [projectId, query],
    );
    const hits: Array<{ path: string; line: number; text: string }> = [];
    for (const r of rows) {
      if (!isInside(base, r.path)) continue;
      const lines = r.content.split('\n');
      for (let i = 0; i < lines.length && hits.length < MAX_HITS; i++) {
        if (lines[i].toLowerCase().includes(needle)) hits.push({ path: r.path, line: i + 1, text: lines[i].slice(0, 300) });
      }
      if (hits.length >= MAX_HITS) break;
    }
    return hits;
  }

  /** The runtime's view of one project's files; writes are attributed to the run. */
  forProject(projectId: number, runId: string | null): Workspace {
    return {
      readOnly: false,
      list: (dir) => this.list(projectId, dir).then((rows) => rows.map(({ path, size, revision }) => ({ path, size, revision }))),
      read: (path) => this.read(projectId, path).then((f) => (f ? { content: f.content, revision: f.revision } : null)),
      write: (path, content) => this.write(projectId, path, content, runId),
      search: (query, dir) => this.search(projectId, query, dir),
    };
  }

  private async lockProject(m: EntityManager, projectId: number) {
    const rows = await m.query('SELECT id FROM projects WHERE id = $1 FOR UPDATE', [projectId]);
    if (!rows.length) throw new DomainError('not_found', 'Project not found');
  }
}
