/** Projects and their workflow state (SPEC §5): always owned by one user; others get 404. */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError, invalid } from '../../platform/errors/domain-error';
import type { AuthUser } from '../auth/user.entity';
import type { AwaitingGate } from '../runtime/runtime.types';
import { WorkflowsService } from '../workflows/workflows.service';
import type { BindWorkflowDto, CreateProjectDto } from './dto/project.dto';
import { Project } from './project.entity';

export interface WorkflowState {
  project_slug: string;
  domain: string | null;
  stage: string | null;
  pack_id: number | null;
  stages: string[];
  awaiting_gate: AwaitingGate | null;
}

@Injectable()
export class ProjectsService {
  constructor(@InjectDataSource() private readonly ds: DataSource, private readonly workflows: WorkflowsService) {}

  private get repo() {
    return this.ds.getRepository(Project);
  }

  list(user: AuthUser) {
    return this.repo.find({ where: { owner_id: user.id }, order: { created_at: 'DESC', id: 'DESC' } });
  }

  async findOwned(user: AuthUser, slug: string): Promise<Project> {
    const p = typeof slug === 'string' && slug.length <= 64 ? await this.repo.findOneBy({ owner_id: user.id, slug }) : null;
    if (!p) throw new DomainError('not_found', `Project ${slug} not found`);
    return p;
  }

  /** The pack, checked visible to the user; a 400 on `field` otherwise. */
  private async visiblePack(user: AuthUser, packId: number, field = 'pack_id') {
    try {
      return await this.workflows.findVisible(user, packId);
    } catch (e) {
      if (e instanceof DomainError && e.status === 404) throw invalid([{ field, message: `pack ${packId} does not exist or is not visible to you` }]);
      throw e;
    }
  }

  async create(user: AuthUser, dto: CreateProjectDto) {
    const pack = dto.pack_id ? await this.visiblePack(user, dto.pack_id) : null;
    const exists = await this.repo.existsBy({ owner_id: user.id, slug: dto.slug });
    if (exists) throw new DomainError('record.duplicate', `You already have a project "${dto.slug}".`, [{ field: 'slug', message: 'is taken' }]);
    return this.repo.save(
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
  }

  async remove(user: AuthUser, slug: string) {
    const p = await this.findOwned(user, slug);
    await this.repo.delete({ id: p.id });
  }

  async stateOf(project: Project): Promise<WorkflowState> {
    let stages: string[] = [];
    if (project.pack_id) {
      const rows: Array<{ stages: string[] }> = await this.ds.query('SELECT stages FROM workflows WHERE id = $1', [project.pack_id]);
      stages = rows[0]?.stages ?? [];
    }
    return {
      project_slug: project.slug,
      domain: project.domain,
      stage: project.stage,
      pack_id: project.pack_id,
      stages,
      awaiting_gate: project.awaiting_gate,
    };
  }

  async getState(user: AuthUser, slug: string) {
    return this.stateOf(await this.findOwned(user, slug));
  }

  /** PUT /agent/workflows/{slug}: bind pack + stage, creating the project when the user has none. */
  async bind(user: AuthUser, slug: string, dto: BindWorkflowDto): Promise<WorkflowState> {
    if (!/^[a-z0-9-]{1,64}$/.test(slug)) throw invalid([{ field: 'slug', message: 'must be 1–64 lowercase letters, digits or "-"' }]);
    const project = await this.ensureProject(user, slug, dto);
    return this.stateOf(project);
  }

  /** Finds or creates the user's project and, when a binding is given, validates and applies it. */
  async ensureProject(user: AuthUser, slug: string, bind: { pack_id?: number | null; domain?: string | null; stage?: string | null }) {
    let project = await this.repo.findOneBy({ owner_id: user.id, slug });
    const wantsBinding = bind.pack_id != null || bind.domain != null || bind.stage != null;
    if (!wantsBinding) {
      if (!project) project = await this.repo.save(this.repo.create({ owner_id: user.id, slug, name: slug }));
      return project;
    }
    const packId = bind.pack_id ?? project?.pack_id;
    if (!packId) throw invalid([{ field: 'pack_id', message: 'choose a pack' }]);
    const pack = await this.visiblePack(user, packId);
    const domain = bind.domain ?? pack.domain;
    if (domain !== pack.domain) throw invalid([{ field: 'domain', message: `the pack's domain is ${pack.domain}` }]);
    const stage = bind.stage ?? (project?.pack_id === pack.id && project.stage ? project.stage : pack.stages[0]);
    if (!pack.stages.includes(stage)) throw invalid([{ field: 'stage', message: `must be one of ${pack.stages.join(', ')}` }]);
    const changed = !project || project.pack_id !== pack.id || project.stage !== stage || project.domain !== domain;
    if (!project) {
      return this.repo.save(this.repo.create({ owner_id: user.id, slug, name: slug, pack_id: pack.id, domain, stage, awaiting_gate: null }));
    }
    if (changed) {
      await this.repo.update({ id: project.id }, { pack_id: pack.id, domain, stage, awaiting_gate: null });
      project = (await this.repo.findOneBy({ id: project.id }))!;
    }
    return project;
  }

  async saveState(projectId: number, state: { stage: string; awaiting_gate: AwaitingGate | null }) {
    await this.repo.update({ id: projectId }, { stage: state.stage, awaiting_gate: state.awaiting_gate });
  }
}
