/**
 * Workflows (packs): CRUD, the relational graph (validated by @service/workflow-graph, saved in one
 * transaction with an optimistic `version`), clone, and the read helpers the runtime uses.
 * Visibility always goes through OwnedRecords; graph rows through graph-store.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { MAX_NODES, validateGraph, type GraphWarning } from '@service/workflow-graph';
import { DataSource, In, type EntityManager } from 'typeorm';
import type { AuthUser } from '../auth/user.entity';
import { Agent } from '../agents/agent.entity';
import { Project } from '../projects/project.entity';
import type { PackSnapshot } from '../runtime/runtime.types';
import { DomainError, invalid, type FieldProblem } from '../../platform/errors/domain-error';
import { OwnedRecords } from '../../platform/ownership/owned-records';
import type { CloneWorkflowDto } from './dto/clone-workflow.dto';
import type { CreateWorkflowDto } from './dto/create-workflow.dto';
import type { UpdateWorkflowDto } from './dto/update-workflow.dto';
import { isPlainObject, own, readSaveGraphBody } from './graph-body';
import { loadGraph, replaceGraph, type StoredGraph } from './graph-store';
import { WorkflowNode } from './workflow-node.entity';
import { keepCurrentVersion, keepSavedVersion } from './workflow-versions';
import { Workflow } from './workflow.entity';
import { claimSlug, findVisible, lockWritable, toRecord, withSlugRetry, type WorkflowRecord } from './workflow-records';
import { isDbId } from '../../platform/database/db-id';
import { defaultStages, MAX_NAME, slugify } from './workflow-rules';

export type WorkflowDetail = WorkflowRecord & StoredGraph;
export interface GraphSnapshot extends StoredGraph {
  version: number;
}
export interface SavedGraph extends GraphSnapshot {
  warnings: GraphWarning[];
}

const PACK_CACHE_SIZE = 500;

@Injectable()
export class WorkflowsService {
  private readonly packCache = new Map<number, { version: number; updatedAt: number; pack: PackSnapshot }>();
  readonly records: OwnedRecords<Workflow>;
  private readonly agents: OwnedRecords<Agent>;

  constructor(@InjectDataSource() private readonly ds: DataSource) {
    this.records = new OwnedRecords(ds.getRepository(Workflow), 'workflow');
    this.agents = new OwnedRecords(ds.getRepository(Agent), 'agent');
  }

  // ------------------------------------------------------------------------------------------
  // Records

  /** Own + system, newest first. */
  async list(user: AuthUser): Promise<WorkflowRecord[]> {
    return this.listVisible(user);
  }

  /** For the agent API and the runtime: own + system packs, or system packs only when `user` is null. */
  async listVisible(user: AuthUser | null): Promise<WorkflowRecord[]> {
    return (await this.records.list(user)).map(toRecord);
  }

  /** One visible record (404 otherwise), without the graph. */
  async findVisible(user: AuthUser | null, id: number): Promise<WorkflowRecord> {
    return toRecord(await findVisible(this.records, user, id));
  }

  /** The record plus its nodes and edges, read from one snapshot. */
  async get(user: AuthUser, id: number): Promise<WorkflowDetail> {
    return this.snapshot(async (m) => {
      const wf = await findVisible(this.records, user, id, m);
      return { ...toRecord(wf), ...(await loadGraph(m, wf.id)) };
    });
  }

  async create(user: AuthUser, dto: CreateWorkflowDto): Promise<WorkflowRecord> {
    const domain = dto.domain ?? (dto.stages ? 'custom' : 'pdlc');
    const stages = dto.stages ?? defaultStages(domain);
    if (!stages) {
      throw invalid([
        { field: 'stages', message: `stages are required for the custom domain "${domain}" (1–32 unique names)` },
      ]);
    }
    return withSlugRetry(dto.slug, () =>
      this.ds.transaction(async (m) => {
        const slug = await claimSlug(this.records, m, user, dto.slug, slugify(dto.name));
        const repo = m.getRepository(Workflow);
        const row = repo.create({
          owner_id: user.id,
          is_system: false,
          name: dto.name,
          slug,
          description: dto.description ?? '',
          domain,
          stages,
          version: 1,
        });
        return toRecord(await repo.save(row));
      }),
    );
  }

  /** Partial update: only the fields sent change. New stages must keep every node's stage_label valid. */
  async update(user: AuthUser, id: number, dto: UpdateWorkflowDto): Promise<WorkflowRecord> {
    return withSlugRetry(dto.slug, () =>
      this.ds.transaction(async (m) => {
        const wf = await lockWritable(this.records, m, user, id);
        if (dto.slug !== undefined && dto.slug !== wf.slug)
          wf.slug = await claimSlug(this.records, m, user, dto.slug, dto.slug, wf.id);
        if (dto.stages !== undefined) await this.assertStagesKeepGraph(m, wf, dto.stages);
        if (dto.name !== undefined) wf.name = dto.name;
        if (dto.description !== undefined) wf.description = dto.description;
        if (dto.domain !== undefined) wf.domain = dto.domain;
        if (dto.stages !== undefined) wf.stages = dto.stages;
        return toRecord(await m.getRepository(Workflow).save(wf));
      }),
    );
  }

  /** 204; 409 naming the projects when any project is bound to the pack. */
  async remove(user: AuthUser, id: number): Promise<void> {
    await this.ds.transaction(async (m) => {
      const wf = await lockWritable(this.records, m, user, id);
      const bound = await m
        .getRepository(Project)
        .find({ select: ['id', 'slug'], where: { pack_id: wf.id }, order: { slug: 'ASC' } });
      if (bound.length) {
        throw new DomainError(
          'record.referenced',
          `Workflow "${wf.name}" is used by ${bound.length === 1 ? 'project' : 'projects'} ${bound
            .map((p) => `"${p.slug}"`)
            .join(
              ', ',
            )}; bind ${bound.length === 1 ? 'it' : 'them'} to another workflow or delete ${bound.length === 1 ? 'it' : 'them'} first.`,
        );
      }
      await m.getRepository(Workflow).delete({ id: wf.id });
    });
  }

  /**
   * Clones a visible pack (own or system) for the caller, graph included; agents stay referenced.
   * REPEATABLE READ: the nodes and edges copied come from one snapshot even if the source is being saved.
   */
  async clone(user: AuthUser, id: number, dto: CloneWorkflowDto): Promise<WorkflowRecord> {
    return withSlugRetry(dto.slug, () =>
      this.ds.transaction('REPEATABLE READ', async (m) => {
        const src = await findVisible(this.records, user, id, m);
        const graph = await loadGraph(m, src.id);
        const name = dto.name ?? copyName(src.name);
        const slug = await claimSlug(this.records, m, user, dto.slug, slugify(name));
        const repo = m.getRepository(Workflow);
        const row = await repo.save(
          repo.create({
            owner_id: user.id,
            is_system: false,
            name,
            slug,
            description: src.description,
            domain: src.domain,
            stages: [...src.stages],
            version: 1,
          }),
        );
        await replaceGraph(m, row.id, graph);
        return toRecord(row);
      }),
    );
  }

  // ------------------------------------------------------------------------------------------
  // Graph

  async getGraph(user: AuthUser, id: number): Promise<GraphSnapshot> {
    return this.snapshot(async (m) => {
      const wf = await findVisible(this.records, user, id, m);
      return { ...(await loadGraph(m, wf.id)), version: wf.version };
    });
  }

  /**
   * Replaces the whole graph. Order: lock the row (404/403), validate (400 with every problem),
   * compare `version` (409 when stale), then delete + bulk insert and bump `version` — all in one
   * transaction, so two editors are serialised by the row lock and never overwrite each other.
   */
  async saveGraph(user: AuthUser, id: number, body: unknown): Promise<SavedGraph> {
    return this.ds.transaction(async (m) => {
      const wf = await lockWritable(this.records, m, user, id);
      const read = readSaveGraphBody(body);
      if (!read.body) throw invalid(read.errors, 'The graph is invalid.');
      const visibleAgents = await this.visibleAgentIds(m, user, read.body.graph.nodes);
      const result = validateGraph(read.body.graph, {
        stages: wf.stages,
        isAgentVisible: (agentId) => visibleAgents.has(agentId),
      });
      const errors = [...read.errors, ...result.errors];
      if (errors.length || !result.graph) {
        throw invalid(errors, `The graph is invalid: ${countLabel(errors.length, 'problem')}.`);
      }
      const expected = read.body.version;
      if (expected !== null && expected !== wf.version) {
        throw new DomainError(
          'graph.stale_version',
          `The graph changed since you loaded it: you sent version ${expected}, the current version is ${wf.version}. Reload the graph and apply your changes again.`,
        );
      }
      await keepCurrentVersion(m, wf.id, wf.version);
      await replaceGraph(m, wf.id, result.graph);
      const version = wf.version + 1;
      await m.getRepository(Workflow).update({ id: wf.id }, { version });
      await keepSavedVersion(m, wf.id, version, result.graph);
      return { nodes: result.graph.nodes, edges: result.graph.edges, version, warnings: result.warnings };
    });
  }

  // ------------------------------------------------------------------------------------------
  // Runtime helpers

  /**
   * The pack as the runtime walks it; `user` null = system packs only. 404 when not visible.
   * Every turn needs it, so the graph is cached per pack and reused while the row's `version` and
   * `updated_at` are unchanged (one indexed read per turn instead of a snapshot transaction).
   * The check is against the database, so it stays right with several processes.
   */
  async getPackForRuntime(user: AuthUser | null, packId: number): Promise<PackSnapshot> {
    return this.packForRuntime(user, await findVisible(this.records, user, packId));
  }

  /** The same, for a workflow row the caller has just read with the owner scope (saves the lookup). */
  async packForRuntime(user: AuthUser | null, wf: Workflow): Promise<PackSnapshot> {
    const packId = wf.id;
    const hit = this.packCache.get(wf.id);
    if (hit && hit.version === wf.version && hit.updatedAt === wf.updated_at.getTime()) return hit.pack;
    const loaded = await this.snapshot(async (m) => {
      const row = await findVisible(this.records, user, packId, m);
      const graph = await loadGraph(m, row.id);
      const pack: PackSnapshot = {
        id: row.id,
        slug: row.slug,
        name: row.name,
        domain: row.domain,
        stages: [...row.stages],
        nodes: graph.nodes,
        edges: graph.edges,
      };
      return { version: row.version, updatedAt: row.updated_at.getTime(), pack };
    });
    this.packCache.delete(wf.id);
    this.packCache.set(wf.id, loaded);
    if (this.packCache.size > PACK_CACHE_SIZE) this.packCache.delete(this.packCache.keys().next().value as number);
    return loaded.pack;
  }

  // ------------------------------------------------------------------------------------------

  /** Reads that must agree with each other (record + nodes + edges) run in one REPEATABLE READ snapshot. */
  private snapshot<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction('REPEATABLE READ', work);
  }

  /** The agent ids named by `rawNodes` that `user` may reference — one query for the whole graph. */
  private async visibleAgentIds(m: EntityManager, user: AuthUser, rawNodes: unknown): Promise<Set<number>> {
    if (!Array.isArray(rawNodes) || rawNodes.length > MAX_NODES) return new Set();
    const ids = new Set<number>();
    for (const node of rawNodes) {
      const agentId = isPlainObject(node) ? own(node, 'agent_id') : undefined;
      if (isDbId(agentId)) ids.add(agentId);
    }
    if (!ids.size) return ids;
    const rows = await this.agents
      .visible(user, 'a', m)
      .select(['a.id'])
      .andWhere({ id: In([...ids]) })
      .getMany();
    return new Set(rows.map((r) => r.id));
  }

  /** 400 when a node would be left with a stage_label that is no longer a stage; 409 when a bound project sits in a removed stage. */
  private async assertStagesKeepGraph(m: EntityManager, wf: Workflow, stages: string[]): Promise<void> {
    const keep = new Set(stages);
    const removed = wf.stages.filter((s) => !keep.has(s));
    if (!removed.length) return;
    const stranded = await m.getRepository(WorkflowNode).find({
      select: ['id', 'node_key', 'stage_label', 'ord'],
      where: { workflow_id: wf.id, stage_label: In(removed) },
      order: { ord: 'ASC' },
    });
    if (stranded.length) {
      const byStage = new Map<string, string[]>();
      for (const n of stranded)
        byStage.set(n.stage_label as string, [...(byStage.get(n.stage_label as string) ?? []), n.node_key]);
      const errors: FieldProblem[] = [...byStage].map(([stage, keys]) => ({
        field: 'stages',
        message: `stage "${stage}" is still used by ${keys.length === 1 ? 'node' : 'nodes'} ${listKeys(keys)}; relabel or remove them first`,
      }));
      throw invalid(errors, 'Changing the stages would leave nodes without a stage.');
    }
    const projects = await m
      .getRepository(Project)
      .find({ select: ['id', 'slug', 'stage'], where: { pack_id: wf.id, stage: In(removed) }, order: { slug: 'ASC' } });
    if (projects.length) {
      throw new DomainError(
        'record.referenced',
        `Projects ${projects.map((p) => `"${p.slug}" (stage ${p.stage})`).join(', ')} are in a stage you are removing; move them to another stage first.`,
      );
    }
  }
}

function copyName(name: string): string {
  const suffix = ' (copy)';
  return name.length + suffix.length <= MAX_NAME ? name + suffix : name.slice(0, MAX_NAME - suffix.length) + suffix;
}

function listKeys(keys: string[]): string {
  const shown = keys
    .slice(0, 10)
    .map((k) => `"${k}"`)
    .join(', ');
  return keys.length > 10 ? `${shown} and ${keys.length - 10} more` : shown;
}

const countLabel = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
