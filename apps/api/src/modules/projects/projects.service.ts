/**
 * Projects and their workflow state (docs/API.md). A project is always owned by one user (there are no
 * system projects, so `projects` has no `is_system` column and OwnedRecords does not apply):
 * `findWithPack` below is the one place that scopes projects by owner; another user's project is 404.
 * Packs are looked up through OwnedRecords<Workflow> (visible = system + own). The workspace file
 * routes go through here too, so every file operation starts with the owner check.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, QueryFailedError } from 'typeorm';
import { DomainError, invalid } from '../../platform/errors/domain-error';
import { OwnedRecords, visibleSql } from '../../platform/ownership/owned-records';
import type { AuthUser } from '../auth/user.entity';
import { Run } from '../chat/run.entity';
import { Workflow } from '../workflows/workflow.entity';
import type { BindWorkflowDto, CreateProjectDto, UpdateProjectDto } from './dto/project.dto';
import { Project, type AwaitingGate } from './project.entity';
import { WorkspaceService, type FileContent, type FileEntry, type RevisionEntry } from './workspace.service';
import { isDbId } from '../../platform/database/db-id';
import {
  toRecord,
  type BindRequest,
  type PackListItem,
  type ProjectRecord,
  type WorkflowState,
} from './project-records';

export type { BindRequest, PackListItem, ProjectRecord, WorkflowState } from './project-records';

export const PROJECT_SLUG = /^[a-z0-9-]{1,64}$/;

const projectNotFound = (slug: unknown) =>
  new DomainError('not_found', `Project ${String(slug).slice(0, 64)} not found`);

type ProjectWithPackRow = Project & {
  w_id: number | null;
  w_owner_id: number | null;
  w_is_system: boolean;
  w_created_at: Date;
  w_updated_at: Date;
  w_name: string;
  w_slug: string;
  w_description: string;
  w_domain: string;
  w_stages: string[];
  w_version: number;
};

@Injectable()
export class ProjectsService {
  private readonly packs: OwnedRecords<Workflow>;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly workspace: WorkspaceService,
  ) {
    this.packs = new OwnedRecords(ds.getRepository(Workflow), 'pack');
  }

  private get repo() {
    return this.ds.getRepository(Project);
  }

  // ------------------------------------------------------------------------------------------
  // Projects

  /** The caller's projects, newest first. */
  async list(user: AuthUser): Promise<ProjectRecord[]> {
    const rows = await this.repo.find({ where: { owner_id: user.id }, order: { created_at: 'DESC', id: 'DESC' } });
    return rows.map(toRecord);
  }

  async get(user: AuthUser, slug: string): Promise<ProjectRecord> {
    return toRecord(await this.findOwned(user, slug));
  }

  /** The caller's project with that slug; 404 for an unknown slug and for another user's project. */
  async findOwned(user: AuthUser, slug: string): Promise<Project> {
    const p = await this.findBySlug(user, slug);
    if (!p) throw projectNotFound(slug);
    return p;
  }

  /** `pack_id` binds the pack at its first stage. A duplicate slug (per owner) is 409. */
  async create(user: AuthUser, dto: CreateProjectDto): Promise<ProjectRecord> {
    const pack = dto.pack_id != null ? await this.visiblePack(user, dto.pack_id) : null;
    if (await this.findBySlug(user, dto.slug)) throw duplicateSlug(dto.slug);
    try {
      const saved = await this.repo.save(
        this.repo.create({
          owner_id: user.id,
          slug: dto.slug,
          name: dto.name ?? dto.slug,
          pack_id: pack?.id ?? null,
          domain: pack?.domain ?? null,
          stage: pack?.stages[0] ?? null,
          awaiting_gate: null,
        }),
      );
      return toRecord(saved);
    } catch (e) {
      if (isUniqueViolation(e)) throw duplicateSlug(dto.slug); // lost a race with a concurrent create
      throw e;
    }
  }

  /**
   * Deletes the project with its files, revisions, runs and history (FK cascades), in one transaction.
   * A project with a turn still running is 409: cancel the run first.
   */
  /** Renames a project; its slug (used in URLs, history and runs) does not change. */
  async rename(user: AuthUser, slug: string, dto: UpdateProjectDto): Promise<ProjectRecord> {
    const p = await this.findOwned(user, slug);
    const name = dto.name.trim();
    await this.repo.update({ id: p.id }, { name });
    return toRecord(await this.findOwned(user, slug));
  }

  async remove(user: AuthUser, slug: string): Promise<void> {
    const p = await this.findOwned(user, slug);
    await this.ds.transaction(async (m) => {
      // the lock makes a turn starting now wait (its run row references the project) and then fail cleanly
      const locked = await m.query<{ id: number }[]>('SELECT id FROM projects WHERE id = $1 FOR UPDATE', [p.id]);
      if (!locked.length) throw projectNotFound(slug);
      if (await m.getRepository(Run).existsBy({ project_id: p.id, state: 'running' })) {
        throw new DomainError(
          'conflict',
          `A turn is still running on project ${slug} (or its outcome is still being stored); cancel it (POST /agent/runs/{id}/cancel) or let it end before deleting the project.`,
        );
      }
      await m.getRepository(Project).delete({ id: p.id });
    });
  }

  // ------------------------------------------------------------------------------------------
  // Workflow state (/agent/workflows)

  /** GET /agent/workflows: system packs (anonymous) or system + own, newest first. */
  async packList(
    user: AuthUser | null,
  ): Promise<{ workflows: PackListItem[]; packs: PackListItem[]; domains: PackListItem[] }> {
    const items = (await this.packs.list(user)).map((w) => ({
      id: w.slug,
      pack_id: w.id,
      slug: w.slug,
      name: w.name,
      domain: w.domain,
      stages: w.stages,
      is_system: w.is_system,
    }));
    return { workflows: items, packs: items, domains: items };
  }

  async stateOf(project: Project): Promise<WorkflowState> {
    let stages: string[] = [];
    if (project.pack_id) {
      // the bound pack was visible to the owner when bound, and a referenced pack cannot be deleted
      const pack = await this.ds
        .getRepository(Workflow)
        .findOne({ where: { id: project.pack_id }, select: { id: true, stages: true } });
      stages = pack?.stages ?? [];
    }
    // the project's unfinished turn: running, or stopped at a tool call awaiting approval (one at most)
    const running = await this.ds.getRepository(Run).findOne({
      where: { project_id: project.id, state: In(['running', 'awaiting_approval']) },
      select: { id: true, state: true, pending_approval: true },
      order: { created_at: 'DESC' },
    });
    const pending = running?.state === 'awaiting_approval' ? running.pending_approval : null;
    return {
      project_slug: project.slug,
      domain: project.domain,
      stage: project.stage,
      pack_id: project.pack_id,
      stages,
      awaiting_gate: project.awaiting_gate ?? null,
      running_run_id: running?.state === 'running' ? running.id : null,
      awaiting_approval: running && pending ? { run_id: running.id, ...pending } : null,
    };
  }

  async getState(user: AuthUser, slug: string): Promise<WorkflowState> {
    return this.stateOf(await this.findOwned(user, slug));
  }

  /**
   * PUT /agent/workflows/{slug}: binds pack, domain and stage (all required), creating the project
   * (name = slug) when the caller has none with that slug. An explicit bind always clears a pending gate.
   */
  async bind(user: AuthUser, slug: string, dto: BindWorkflowDto): Promise<WorkflowState> {
    if (!PROJECT_SLUG.test(slug))
      throw invalid([{ field: 'slug', message: 'must be 1–64 lowercase letters, digits or "-"' }]);
    return this.stateOf(await this.ensureProject(user, slug, dto, { resetGate: true }));
  }

  /**
   * For the chat module: the caller's project `slug`, created when missing, with the binding applied.
   * The pack is `pack_id`; else the project's current pack (when `domain` is absent or matches it);
   * else, when only `domain` is given, the visible pack of that domain (system first, then lowest id).
   * `domain` must equal the pack's domain and `stage` be one of its stages (400 by field). A changed
   * binding clears `awaiting_gate`; `resetGate` clears it even when nothing changed.
   */
  async ensureProject(
    user: AuthUser,
    slug: string,
    bind: BindRequest = {},
    opts: { resetGate?: boolean } = {},
  ): Promise<Project> {
    return (await this.ensureBinding(user, slug, bind, opts)).project;
  }

  /** ensureProject, also returning the bound pack's row (read with the owner scope; null = no pack). */
  async ensureBinding(
    user: AuthUser,
    slug: string,
    bind: BindRequest = {},
    opts: { resetGate?: boolean } = {},
  ): Promise<{ project: Project; pack: Workflow | null }> {
    if (typeof slug !== 'string' || !PROJECT_SLUG.test(slug))
      throw invalid([{ field: 'project_slug', message: 'must be 1–64 lowercase letters, digits or "-"' }]);
    const found = await this.findWithPack(user, slug);
    let project = found.project;
    const pack = await this.resolvePack(user, project, bind, found.pack);
    if (!pack) {
      if (bind.stage != null)
        throw invalid([{ field: 'pack_id', message: 'choose a pack for this project before a stage' }]);
      return { project: project ?? (await this.insertOrGet(user, slug, {})), pack: null };
    }
    if (bind.domain != null && bind.domain !== pack.domain)
      throw invalid([{ field: 'domain', message: `must be the pack's domain, "${pack.domain}"` }]);
    const keepStage = project?.pack_id === pack.id && project.stage && pack.stages.includes(project.stage);
    const stage = bind.stage ?? (keepStage ? project!.stage! : pack.stages[0]);
    if (!pack.stages.includes(stage))
      throw invalid([{ field: 'stage', message: `must be one of the pack's stages: ${pack.stages.join(', ')}` }]);
    if (!project) project = await this.insertOrGet(user, slug, { pack_id: pack.id, domain: pack.domain, stage });
    const changed = project.pack_id !== pack.id || project.domain !== pack.domain || project.stage !== stage;
    if (changed || (opts.resetGate && project.awaiting_gate)) {
      await this.repo.update({ id: project.id }, { pack_id: pack.id, domain: pack.domain, stage, awaiting_gate: null });
      project = (await this.repo.findOneBy({ id: project.id })) ?? project;
    }
    return { project, pack };
  }

  /** The runtime's port: persists the stage and the pending gate after every move. */
  async saveState(projectId: number, state: { stage: string; awaiting_gate: AwaitingGate | null }): Promise<void> {
    await this.repo.update({ id: projectId }, { stage: state.stage, awaiting_gate: state.awaiting_gate });
  }

  // ------------------------------------------------------------------------------------------
  // Workspace files (/studio/api/projects/{slug}/files)

  async listFiles(user: AuthUser, slug: string): Promise<FileEntry[]> {
    return this.workspace.list((await this.findOwned(user, slug)).id);
  }

  /** `segments` is the route's wildcard path, joined and then checked by the one path helper. */
  async readFile(user: AuthUser, slug: string, segments: string[], revision?: number): Promise<FileContent> {
    return this.workspace.file((await this.findOwned(user, slug)).id, segments.join('/'), revision);
  }

  async fileRevisions(user: AuthUser, slug: string, segments: string[]): Promise<RevisionEntry[]> {
    return this.workspace.revisions((await this.findOwned(user, slug)).id, segments.join('/'));
  }

  async writeFile(user: AuthUser, slug: string, segments: string[], content: string) {
    return this.workspace.write((await this.findOwned(user, slug)).id, segments.join('/'), content);
  }

  async deleteFile(user: AuthUser, slug: string, segments: string[]): Promise<void> {
    await this.workspace.remove((await this.findOwned(user, slug)).id, segments.join('/'));
  }

  // ------------------------------------------------------------------------------------------

  private async findBySlug(user: AuthUser, slug: unknown): Promise<Project | null> {
    return (await this.findWithPack(user, slug)).project;
  }

  /**
   * THE owner scope for projects: the caller's project `slug` with its bound pack when the caller may
   * see it. Every chat turn starts here, so it is one hand-written statement.
   */
  private async findWithPack(
    user: AuthUser,
    slug: unknown,
  ): Promise<{ project: Project | null; pack: Workflow | null }> {
    if (typeof slug !== 'string' || !PROJECT_SLUG.test(slug)) return { project: null, pack: null };
    const rows: ProjectWithPackRow[] = await this.ds.query(
      `SELECT p.id, p.owner_id, p.slug, p.name, p.pack_id, p.domain, p.stage, p.awaiting_gate, p.created_at, p.updated_at,
              w.id AS w_id, w.owner_id AS w_owner_id, w.is_system AS w_is_system, w.created_at AS w_created_at, w.updated_at AS w_updated_at,
              w.name AS w_name, w.slug AS w_slug, w.description AS w_description, w.domain AS w_domain, w.stages AS w_stages, w.version AS w_version
         FROM projects p
         LEFT JOIN workflows w ON w.id = p.pack_id AND ${visibleSql('w', '$1')}
        WHERE p.owner_id = $1 AND p.slug = $2`,
      [user.id, slug],
    );
    const r = rows[0];
    if (!r) return { project: null, pack: null };
    const project = Object.assign(new Project(), {
      id: r.id,
      owner_id: r.owner_id,
      slug: r.slug,
      name: r.name,
      pack_id: r.pack_id,
      domain: r.domain,
      stage: r.stage,
      awaiting_gate: r.awaiting_gate,
      created_at: r.created_at,
      updated_at: r.updated_at,
    });
    const pack =
      r.w_id == null
        ? null
        : Object.assign(new Workflow(), {
            id: r.w_id,
            owner_id: r.w_owner_id,
            is_system: r.w_is_system,
            created_at: r.w_created_at,
            updated_at: r.w_updated_at,
            name: r.w_name,
            slug: r.w_slug,
            description: r.w_description,
            domain: r.w_domain,
            stages: r.w_stages,
            version: r.w_version,
          });
    return { project, pack };
  }

  /** Creates the project unless a concurrent request just did; either way returns the row. */
  private async insertOrGet(
    user: AuthUser,
    slug: string,
    binding: Partial<Pick<Project, 'pack_id' | 'domain' | 'stage'>>,
  ): Promise<Project> {
    await this.repo
      .createQueryBuilder()
      .insert()
      .into(Project)
      .values({
        owner_id: user.id,
        slug,
        name: slug,
        pack_id: null,
        domain: null,
        stage: null,
        awaiting_gate: null,
        ...binding,
      })
      .orIgnore()
      .execute();
    const p = await this.findBySlug(user, slug);
    if (!p) throw projectNotFound(slug);
    return p;
  }

  /** The pack by id, visible to the user; a 400 on `pack_id` otherwise (never a 404 for a reference). */
  private async visiblePack(user: AuthUser, packId: unknown): Promise<Workflow> {
    if (!isDbId(packId)) throw invalid([{ field: 'pack_id', message: 'must be the id of a pack' }]);
    const [pack] = await this.packs.assertVisible(user, [packId], 'pack_id');
    return pack;
  }

  /** `current` is the project's pack as findWithPack read it (null when none or not visible). */
  private async resolvePack(
    user: AuthUser,
    project: Project | null,
    bind: BindRequest,
    current: Workflow | null,
  ): Promise<Workflow | null> {
    if (bind.pack_id != null)
      return current && current.id === bind.pack_id ? current : this.visiblePack(user, bind.pack_id);
    if (project?.pack_id && (bind.domain == null || bind.domain === project.domain))
      return current ?? this.visiblePack(user, project.pack_id);
    if (bind.domain == null) return null;
    const pack = await this.packs
      .visible(user, 'w')
      .andWhere('w.domain = :domain', { domain: bind.domain })
      .orderBy('w.is_system', 'DESC')
      .addOrderBy('w.id', 'ASC')
      .getOne();
    if (!pack)
      throw invalid([
        { field: 'domain', message: `no pack of domain "${bind.domain}" is visible to you; give pack_id` },
      ]);
    return pack;
  }
}

function duplicateSlug(slug: string) {
  return new DomainError('record.duplicate', `You already have a project "${slug}".`, [
    { field: 'slug', message: 'is taken' },
  ]);
}

function isUniqueViolation(e: unknown) {
  return e instanceof QueryFailedError && (e as unknown as { code?: string }).code === '23505';
}
