/**
 * Export and import of packs as portable documents (pack-document.ts): export gathers the graph and
 * everything it references; import checks the whole document first, then, in one transaction (all or
 * nothing), reuses the importer's own records that are identical to the document's (same fields, same
 * references) and creates the rest, references remapped to the ids used (docs/decisions/workflows.md, "Import").
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { GraphWarning } from '@service/workflow-graph';
import { DataSource, In, type EntityManager, type ObjectLiteral } from 'typeorm';
import type { AuthUser } from '../auth/user.entity';
import { Agent } from '../agents/agent.entity';
import { Model } from '../models/model.entity';
import { Skill } from '../skills/skill.entity';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { DomainError, invalid } from '../../platform/errors/domain-error';
import { OwnedRecords } from '../../platform/ownership/owned-records';
import { insertChunked, loadGraph, replaceGraph } from './graph-store';
import { agentIdsOf, buildPackDocument, readPackDocument, type PackDocument } from './pack-document';
import { Workflow } from './workflow.entity';
import { claimSlug, findVisible, toRecord, withSlugRetry, type WorkflowRecord } from './workflow-records';
import { slugify } from './workflow-rules';

export interface ImportResult {
  workflow: WorkflowRecord;
  /** Ids of the records created, in document order. */
  created: { models: number[]; skills: number[]; agents: number[] };
  /** Ids of the importer's existing records used instead of creating identical copies. */
  reused: { models: number[]; skills: number[]; agents: number[] };
  warnings: GraphWarning[];
}

@Injectable()
export class WorkflowTransferService {
  private readonly workflows: OwnedRecords<Workflow>;
  private readonly agents: OwnedRecords<Agent>;
  private readonly skills: OwnedRecords<Skill>;
  private readonly models: OwnedRecords<Model>;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.workflows = new OwnedRecords(ds.getRepository(Workflow), 'workflow');
    this.agents = new OwnedRecords(ds.getRepository(Agent), 'agent');
    this.skills = new OwnedRecords(ds.getRepository(Skill), 'skill');
    this.models = new OwnedRecords(ds.getRepository(Model), 'model');
  }

  /** The pack and everything its graph references, read from one snapshot. No secrets, owners, times or ids. */
  async exportPack(user: AuthUser, id: number): Promise<PackDocument> {
    return this.ds.transaction('REPEATABLE READ', async (m) => {
      const wf = await findVisible(this.workflows, user, id, m);
      const graph = await loadGraph(m, wf.id);
      const agents = await this.load(this.agents, m, user, agentIdsOf(graph));
      const skills = await this.load(
        this.skills,
        m,
        user,
        agents.flatMap((a) => a.skill_ids),
      );
      const models = await this.load(
        this.models,
        m,
        user,
        agents.map((a) => a.model_id).filter((mid): mid is number => mid !== null),
      );
      return buildPackDocument({
        pack: { name: wf.name, slug: wf.slug, description: wf.description, domain: wf.domain, stages: wf.stages },
        graph,
        agents,
        skills,
        models,
      });
    });
  }

  /** 201 with the new workflow and the ids created; 400 (nothing created) for any problem in the document. */
  async importPack(user: AuthUser, doc: unknown): Promise<ImportResult> {
    const { plan, errors } = readPackDocument(doc, { hostMode: this.config.modelHosts });
    if (!plan)
      throw invalid(
        errors,
        `The document cannot be imported: ${errors.length} problem${errors.length === 1 ? '' : 's'}.`,
      );

    return withSlugRetry(undefined, () =>
      this.ds.transaction(async (m) => {
        const owner = { owner_id: user.id, is_system: false };
        const models = await this.reuseOrInsert(
          m,
          this.models,
          user,
          Model,
          plan.models.map((d) => ({
            ...owner,
            label: d.label,
            provider: d.provider,
            model_id: d.model_id,
            api_base: d.api_base,
            temperature: d.temperature,
            max_tokens: d.max_tokens,
          })),
          modelKey,
        );
        const skills = await this.reuseOrInsert(
          m,
          this.skills,
          user,
          Skill,
          plan.skills.map((d) => ({
            ...owner,
            name: d.name,
            description: d.description,
            prompt_md: d.prompt_md,
            tool_allowlist: d.tool_allowlist,
            tools_requiring_approval: d.tools_requiring_approval ?? [],
            artifact_hint: d.artifact_hint,
          })),
          skillKey,
        );
        const agents = await this.reuseOrInsert(
          m,
          this.agents,
          user,
          Agent,
          plan.agents.map((d) => ({
            ...owner,
            name: d.name,
            role: d.role,
            system_prompt: d.system_prompt,
            model_id: d.model_index === null ? null : models.ids[d.model_index],
            skill_ids: d.skill_indexes.map((i) => skills.ids[i]),
            tool_allowlist: d.tool_allowlist,
            tools_requiring_approval: d.tools_requiring_approval ?? [],
            max_iterations: d.max_iterations,
          })),
          agentKey,
        );
        const agentIds = agents.ids;

        const slug = await claimSlug(this.workflows, m, user, undefined, plan.pack.slug ?? slugify(plan.pack.name));
        const repo = m.getRepository(Workflow);
        const wf = await repo.save(
          repo.create({
            ...owner,
            name: plan.pack.name,
            slug,
            description: plan.pack.description,
            domain: plan.pack.domain,
            stages: plan.pack.stages,
            version: 1,
          }),
        );
        await replaceGraph(m, wf.id, {
          nodes: plan.graph.nodes.map((n) => ({
            ...n,
            agent_id: n.agent_id === null ? null : agentIds[n.agent_id - 1],
          })),
          edges: plan.graph.edges,
        });
        return {
          workflow: toRecord(wf),
          created: { models: models.created, skills: skills.created, agents: agents.created },
          reused: { models: models.reused, skills: skills.reused, agents: agents.reused },
          warnings: plan.warnings,
        };
      }),
    );
  }

  /**
   * The id for each of `rows` (document order): one of the caller's own records with the same `key`
   * (the oldest), else an earlier identical row of the document, else a new record (inserted in one go).
   */
  private async reuseOrInsert<T extends Agent | Skill | Model, R extends ObjectLiteral>(
    m: EntityManager,
    records: OwnedRecords<T>,
    user: AuthUser,
    entity: new () => T,
    rows: R[],
    key: (r: R | T) => string,
  ): Promise<{ ids: number[]; created: number[]; reused: number[] }> {
    const ids = new Array<number | undefined>(rows.length);
    const reused = new Set<number>();
    if (rows.length) {
      const own = await records.visible(user, 'r', m).andWhere('r.is_system = false').orderBy('r.id', 'ASC').getMany();
      const known = new Map<string, number>();
      for (const r of own) if (!known.has(key(r))) known.set(key(r), r.id);
      rows.forEach((r, i) => {
        const id = known.get(key(r));
        if (id !== undefined) {
          ids[i] = id;
          reused.add(id);
        }
      });
    }
    const pending = new Map<string, number[]>();
    rows.forEach((r, i) => {
      if (ids[i] !== undefined) return;
      const k = key(r);
      pending.set(k, [...(pending.get(k) ?? []), i]);
    });
    const groups = [...pending.values()];
    const created = await insertChunked(
      m,
      entity,
      groups.map((g) => rows[g[0]] as never),
      { returnIds: true },
    );
    if (created.length !== groups.length) throw new Error('import: the database returned fewer ids than rows inserted');
    groups.forEach((g, j) => g.forEach((i) => (ids[i] = created[j])));
    return { ids: ids as number[], created, reused: [...reused] };
  }

  /** Rows by id, visible to `user`; a referenced row that is not visible is a broken pack (409). */
  private async load<T extends Agent | Skill | Model>(
    records: OwnedRecords<T>,
    m: EntityManager,
    user: AuthUser,
    ids: number[],
  ): Promise<T[]> {
    const unique = [...new Set(ids)];
    if (!unique.length) return [];
    const rows = await records
      .visible(user, 'r', m)
      .andWhere({ id: In(unique) })
      .getMany();
    if (rows.length !== unique.length) {
      const found = new Set(rows.map((r) => r.id));
      const missing = unique.filter((x) => !found.has(x));
      throw new DomainError(
        'conflict',
        `The workflow references ${records.noun} ${missing.join(', ')}, which you cannot read; it cannot be exported.`,
      );
    }
    return rows;
  }
}

// What makes two records "identical" for import: every field the document carries (references resolved).
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Math.fround(Number(v)));
function modelKey(r: Partial<Model>): string {
  return JSON.stringify([
    r.label,
    r.provider,
    r.model_id,
    r.api_base ?? null,
    num(r.temperature),
    r.max_tokens ?? null,
  ]);
}
function skillKey(r: Partial<Skill>): string {
  return JSON.stringify([
    r.name,
    r.description ?? '',
    r.prompt_md ?? '',
    r.tool_allowlist ?? [],
    r.tools_requiring_approval ?? [],
    r.artifact_hint ?? '',
  ]);
}
function agentKey(r: Partial<Agent>): string {
  return JSON.stringify([
    r.name,
    r.role ?? '',
    r.system_prompt ?? '',
    r.model_id ?? null,
    r.skill_ids ?? [],
    r.tool_allowlist ?? [],
    r.tools_requiring_approval ?? [],
    r.max_iterations,
  ]);
}
