/**
 * A project's workspace: files with their current content (project_files) and an append-only history
 * of every write (file_revisions). Used by the HTTP file API and, through `forProject`, by the agent
 * tools. Every write is one transaction that first locks the project row, so concurrent writers to one
 * project are serialised: revisions never collide and the file-count limit cannot be raced past.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { DomainError, invalid } from '../../platform/errors/domain-error';
import type { FileChangeInfo, Workspace, WorkspaceEntry } from '../runtime/runtime.types';
import { FileRevision } from './file-revision.entity';
import { ProjectFile } from './project-file.entity';
import { isInside, normalizeWorkspaceDir, normalizeWorkspacePath } from './workspace-path';

export const MAX_FILE_BYTES = 1024 * 1024;
export const MAX_FILES = 10_000;
export const MAX_SEARCH_HITS = 200;
export const MAX_SEARCH_LINE = 300;
export const MAX_SEARCH_QUERY = 1024;

export interface FileEntry extends WorkspaceEntry {
  updated_at: Date;
}

export interface FileContent extends FileEntry {
  content: string;
}

export interface RevisionEntry {
  revision: number;
  change: FileChangeInfo['change'];
  size: number;
  created_at: Date;
  run_id: string | null;
}

export interface SearchHit {
  path: string;
  line: number;
  text: string;
}

const fileNotFound = (path: string) => new DomainError('not_found', `File ${path} not found`);

@Injectable()
export class WorkspaceService {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Files under `dir` (default: all), sorted by path (code-point order on both databases). */
  async list(projectId: number, dir?: string): Promise<FileEntry[]> {
    const base = normalizeWorkspaceDir(dir);
    const rows: Array<{ path: string; size: number; revision: number; updated_at: Date | string }> =
      await this.ds.query(
        `SELECT path, size, revision, updated_at FROM project_files
        WHERE project_id = $1 AND ($2 = '' OR path = $2 OR starts_with(path, $2 || '/'))
        ORDER BY path COLLATE "C"`,
        [projectId, base],
      );
    return rows.map((r) => ({
      path: r.path,
      size: Number(r.size),
      revision: Number(r.revision),
      updated_at: new Date(r.updated_at),
    }));
  }

  /** The current content, or an earlier `revision`; null when there is none (or it was a deletion). */
  async read(projectId: number, path: string, revision?: number): Promise<FileContent | null> {
    const p = normalizeWorkspacePath(path);
    if (revision !== undefined) {
      const rev = await this.ds.getRepository(FileRevision).findOneBy({ project_id: projectId, path: p, revision });
      if (!rev || rev.content === null) return null;
      return { path: p, content: rev.content, revision: rev.revision, size: rev.size, updated_at: rev.created_at };
    }
    const f = await this.ds.getRepository(ProjectFile).findOneBy({ project_id: projectId, path: p });
    return f
      ? { path: f.path, content: f.content, revision: f.revision, size: f.size, updated_at: f.updated_at }
      : null;
  }

  /** Like `read`, but a missing file (or revision) is a 404. */
  async file(projectId: number, path: string, revision?: number): Promise<FileContent> {
    const f = await this.read(projectId, path, revision);
    if (!f) throw fileNotFound(revision === undefined ? path : `${path} revision ${revision}`);
    return f;
  }

  /**
   * Creates or replaces a file and appends a revision with the new content. Writing the content the
   * file already has is a no-op: no new revision, the answer carries the current one.
   */
  async write(
    projectId: number,
    path: string,
    content: string,
    runId: string | null = null,
    key: string | null = null,
  ): Promise<FileChangeInfo> {
    const p = normalizeWorkspacePath(path);
    if (typeof content !== 'string') throw invalid([{ field: 'content', message: 'must be a string' }]);
    const size = Buffer.byteLength(content, 'utf8');
    if (size > MAX_FILE_BYTES) {
      throw invalid(
        [{ field: 'content', message: `must be at most ${MAX_FILE_BYTES} bytes (1 MiB) of UTF-8` }],
        `A file is at most 1 MiB; this content is ${size} bytes.`,
      );
    }
    return this.ds.transaction(async (m) => {
      await this.lockProject(m, projectId);
      const files = m.getRepository(ProjectFile);
      const existing = await files.findOneBy({ project_id: projectId, path: p });
      if (existing && existing.content === content)
        return { path: p, change: 'unchanged', revision: existing.revision };
      let revision: number;
      if (existing) {
        revision = existing.revision + 1;
        await files.update({ id: existing.id }, { content, size, revision });
      } else {
        const count = await files.countBy({ project_id: projectId });
        if (count >= MAX_FILES) {
          throw new DomainError(
            'conflict',
            `A workspace holds at most ${MAX_FILES} files; delete some before adding ${p}.`,
            [{ field: 'path', message: 'the workspace is full' }],
          );
        }
        // a path that was deleted earlier goes on from its last revision (revisions are unique per path)
        const last = await m.getRepository(FileRevision).maximum('revision', { project_id: projectId, path: p });
        revision = (last ?? 0) + 1;
        await files.insert({ project_id: projectId, path: p, content, size, revision });
      }
      const change = existing ? 'modified' : 'added';
      await m.getRepository(FileRevision).insert({
        project_id: projectId,
        path: p,
        revision,
        change,
        content,
        size,
        run_id: runId,
        idempotency_key: key,
      });
      return { path: p, change, revision };
    });
  }

  /** The change a keyed write made (docs/decisions/runtime.md, "Durable runs"), or null when none landed. */
  async landed(projectId: number, key: string): Promise<FileChangeInfo | null> {
    const [row]: Array<{ path: string; change: FileChangeInfo['change']; revision: number }> = await this.ds.query(
      'SELECT path, change, revision FROM file_revisions WHERE project_id = $1 AND idempotency_key = $2',
      [projectId, key],
    );
    return row ? { path: row.path, change: row.change, revision: Number(row.revision) } : null;
  }

  /** Deletes a file; its history stays, ending with a `deleted` revision (content null). */
  async remove(projectId: number, path: string, runId: string | null = null): Promise<FileChangeInfo> {
    const p = normalizeWorkspacePath(path);
    return this.ds.transaction(async (m) => {
      await this.lockProject(m, projectId);
      const files = m.getRepository(ProjectFile);
      const existing = await files.findOneBy({ project_id: projectId, path: p });
      if (!existing) throw fileNotFound(p);
      const revision = existing.revision + 1;
      await files.delete({ id: existing.id });
      await m
        .getRepository(FileRevision)
        .insert({ project_id: projectId, path: p, revision, change: 'deleted', content: null, size: 0, run_id: runId });
      return { path: p, change: 'deleted', revision };
    });
  }

  /** Every revision of a path, newest first (also after the file was deleted); 404 when it never existed. */
  async revisions(projectId: number, path: string): Promise<RevisionEntry[]> {
    const p = normalizeWorkspacePath(path);
    const rows = await this.ds.getRepository(FileRevision).find({
      where: { project_id: projectId, path: p },
      select: { revision: true, change: true, size: true, created_at: true, run_id: true },
      order: { revision: 'DESC' },
    });
    if (!rows.length) throw fileNotFound(p);
    return rows.map((r) => ({
      revision: r.revision,
      change: r.change,
      size: r.size,
      created_at: r.created_at,
      run_id: r.run_id,
    }));
  }

  /**
   * Case-insensitive plain-substring search (no regex) over the files under `dir`: at most
   * MAX_SEARCH_HITS hits in path order, each line cut to MAX_SEARCH_LINE characters.
   */
  async search(projectId: number, query: string, dir?: string): Promise<SearchHit[]> {
    if (typeof query !== 'string' || !query.length)
      throw invalid([{ field: 'query', message: 'must be a non-empty string' }]);
    if (query.length > MAX_SEARCH_QUERY)
      throw invalid([{ field: 'query', message: `must be at most ${MAX_SEARCH_QUERY} characters` }]);
    const base = normalizeWorkspaceDir(dir);
    const needle = query.toLowerCase();
    const rows: Array<{ path: string; content: string }> = await this.ds.query(
      `SELECT path, content FROM project_files
        WHERE project_id = $1 AND ($3 = '' OR path = $3 OR starts_with(path, $3 || '/'))
          AND strpos(lower(content), lower($2)) > 0
        ORDER BY path COLLATE "C"`,
      [projectId, query, base],
    );
    const hits: SearchHit[] = [];
    for (const r of rows) {
      if (!isInside(base, r.path)) continue;
      const lines = r.content.split('\n');
      for (let i = 0; i < lines.length; i++) {
        if (!lines[i].toLowerCase().includes(needle)) continue;
        hits.push({ path: r.path, line: i + 1, text: cut(lines[i].replace(/\r$/, ''), MAX_SEARCH_LINE) });
        if (hits.length >= MAX_SEARCH_HITS) return hits;
      }
    }
    return hits;
  }

  /** The runtime's view of one project's files (docs/API.md); writes are attributed to the run. */
  forProject(projectId: number, runId: string | null): Workspace {
    return {
      readOnly: false,
      list: async (dir) =>
        (await this.list(projectId, dir)).map(({ path, size, revision }) => ({ path, size, revision })),
      read: async (path) => {
        const f = await this.read(projectId, path);
        return f ? { content: f.content, revision: f.revision } : null;
      },
      write: (path, content, key) => this.write(projectId, path, content, runId, key ?? null),
      landed: (key) => this.landed(projectId, key),
      search: (query, dir) => this.search(projectId, query, dir),
    };
  }

  private async lockProject(m: EntityManager, projectId: number) {
    const rows = await m.query<{ id: number }[]>('SELECT id FROM projects WHERE id = $1 FOR UPDATE', [projectId]);
    if (!rows.length) throw new DomainError('not_found', 'Project not found');
  }
}

/** At most `max` characters, never splitting a surrogate pair. */
function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  return Array.from(s).slice(0, max).join('');
}
