/**
 * Export and import of packs as portable documents (pack-document.ts): export gathers the graph and
 * everything it references; import checks the whole document first, then creates every record for
 * the importer in one transaction (all or nothing), references remapped to the new ids.
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { GraphWarning } from '@service/workflow-graph';
import { DataSource, In, type EntityManager } from 'typeorm';
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
      const skills = await this.load(this.skills, m, user, agents.flatMap((a) => a.skill_ids));
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
    if (!plan) throw invalid(errors, `The document cannot be imported: ${errors.length} problem${errors.length === 1 ? '' : 's'}.`);

    return withSlugRetry(undefined, () =>
      this.ds.transaction(async (m) => {
        const owner = { owner_id: user.id, is_system: false };
        const modelIds = await insertChunked(
          m,
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
          { returnIds: true },
        );
        const skillIds = await insertChunked(
          m,
          Skill,
          plan.skills.map((d) => ({
            ...owner,
            name: d.name,
            description: d.description,
            prompt_md: d.prompt_md,
            tool_allowlist: d.tool_allowlist,
            artifact_hint: d.artifact_hint,
          })),
          { returnIds: true },
        );
        const agentIds = await insertChunked(
          m,
          Agent,
          plan.agents.map((d) => ({
            ...owner,
            name: d.name,
            role: d.role,
            system_prompt: d.system_prompt,
            model_id: d.model_index === null ? null : modelIds[d.model_index],
            skill_ids: d.skill_indexes.map((i) => skillIds[i]),
            tool_allowlist: d.tool_allowlist,
            max_iterations: d.max_iterations,
          })),
          { returnIds: true },
        );
        if (agentIds.length !== plan.agents.length || skillIds.length !== plan.skills.length || modelIds.length !== plan.models.length) {
          throw new Error('import: the database returned fewer ids than rows inserted');
        }

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
          nodes: plan.graph.nodes.map((n) => ({ ...n, agent_id: n.agent_id === null ? null : agentIds[n.agent_id - 1] })),
          edges: plan.graph.edges,
        });
        return { workflow: toRecord(wf), created: { models: modelIds, skills: skillIds, agents: agentIds }, warnings: plan.warnings };
      }),
    );
  }

  /** Rows by id, visible to `user`; a referenced row that is not visible is a broken pack (409). */
  private async load<T extends Agent | Skill | Model>(records: OwnedRecords<T>, m: EntityManager, user: AuthUser, ids: number[]): Promise<T[]> {
    const unique = [...new Set(ids)];
    if (!unique.length) return [];
    const rows = await records.visible(user, 'r', m).andWhere({ id: In(unique) }).getMany();
    if (rows.length !== unique.length) {
      const found = new Set(rows.map((r) => r.id));
      const missing = unique.filter((x) => !found.has(x));
      throw new DomainError('conflict', `The workflow references ${records.noun} ${missing.join(', ')}, which you cannot read; it cannot be exported.`);
    }
    return rows;
  }
}
