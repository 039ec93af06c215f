/**
 * Seeds the system PDLC pack at boot (after migrations): one system skill and one system agent per
 * stage, and the pack with its graph. Idempotent: records are matched by slug (the pack) and name
 * (skills, agents) among system records and only missing ones are created — nothing existing is
 * changed, so a restart never touches what is there. One transaction under an advisory lock, so two
 * servers booting on one database at the same moment cannot both create the pack.
 */
import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { validateGraph } from '@service/workflow-graph';
import { DataSource, type EntityManager } from 'typeorm';
import { Agent } from '../agents/agent.entity';
import { Skill } from '../skills/skill.entity';
import { OwnedRecords } from '../../platform/ownership/owned-records';
import { replaceGraph } from './graph-store';
import { PDLC_PACK, PDLC_STAGES, pdlcGraph } from './pdlc-pack';
import { Workflow } from './workflow.entity';

/** pg_advisory_xact_lock key for the seed ("pdlcseed" in ASCII). */
const SEED_LOCK = 0x70646c63;

export interface SeedResult {
  skills: number;
  agents: number;
  workflows: number;
}

@Injectable()
export class PdlcSeedService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Seed');
  private readonly workflows: OwnedRecords<Workflow>;
  private readonly agents: OwnedRecords<Agent>;
  private readonly skills: OwnedRecords<Skill>;

  constructor(@InjectDataSource() private readonly ds: DataSource) {
    this.workflows = new OwnedRecords(ds.getRepository(Workflow), 'workflow');
    this.agents = new OwnedRecords(ds.getRepository(Agent), 'agent');
    this.skills = new OwnedRecords(ds.getRepository(Skill), 'skill');
  }

  async onApplicationBootstrap(): Promise<void> {
    const created = await this.seed();
    if (created.skills + created.agents + created.workflows > 0) {
      this.logger.log(
        `system PDLC pack seeded: ${created.workflows} workflow, ${created.agents} agents, ${created.skills} skills created`,
      );
    }
  }

  /** Creates whatever part of the system PDLC pack is missing; returns how many records it created. */
  async seed(): Promise<SeedResult> {
    return this.ds.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK]);
      const result: SeedResult = { skills: 0, agents: 0, workflows: 0 };
      const skillIds = await this.ensureSkills(m, result);
      const agentIds = await this.ensureAgents(m, skillIds, result);
      await this.ensurePack(m, agentIds, result);
      return result;
    });
  }

  /** System skill id per stage, creating the missing ones. */
  private async ensureSkills(m: EntityManager, result: SeedResult): Promise<Map<string, number>> {
    const existing = await this.systemByName(
      this.skills,
      m,
      PDLC_STAGES.map((s) => s.skill.name),
    );
    const ids = new Map<string, number>();
    const repo = m.getRepository(Skill);
    for (const s of PDLC_STAGES) {
      let id = existing.get(s.skill.name);
      if (id === undefined) {
        id = (
          await repo.save(
            repo.create({ ...s.skill, tool_allowlist: [...s.skill.tool_allowlist], owner_id: null, is_system: true }),
          )
        ).id;
        result.skills++;
      }
      ids.set(s.stage, id);
    }
    return ids;
  }

  /** System agent id per stage, creating the missing ones (each with its stage's skill, on the default model). */
  private async ensureAgents(
    m: EntityManager,
    skillIds: Map<string, number>,
    result: SeedResult,
  ): Promise<Map<string, number>> {
    const existing = await this.systemByName(
      this.agents,
      m,
      PDLC_STAGES.map((s) => s.agent.name),
    );
    const ids = new Map<string, number>();
    const repo = m.getRepository(Agent);
    for (const s of PDLC_STAGES) {
      let id = existing.get(s.agent.name);
      if (id === undefined) {
        const row = repo.create({
          ...s.agent,
          tool_allowlist: [...s.agent.tool_allowlist],
          model_id: null,
          skill_ids: [skillIds.get(s.stage) as number],
          owner_id: null,
          is_system: true,
        });
        id = (await repo.save(row)).id;
        result.agents++;
      }
      ids.set(s.stage, id);
    }
    return ids;
  }

  private async ensurePack(m: EntityManager, agentIds: Map<string, number>, result: SeedResult): Promise<void> {
    const found = await this.workflows
      .visible(null, 'w', m)
      .andWhere('w.slug = :slug', { slug: PDLC_PACK.slug })
      .getOne();
    if (found) return;
    const graph = pdlcGraph(agentIds);
    const checked = validateGraph(graph, {
      stages: PDLC_PACK.stages,
      isAgentVisible: (id) => [...agentIds.values()].includes(id),
    });
    if (checked.errors.length || !checked.graph) {
      throw new Error(
        `PDLC seed graph is invalid: ${checked.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
      );
    }
    const repo = m.getRepository(Workflow);
    const wf = await repo.save(
      repo.create({
        owner_id: null,
        is_system: true,
        name: PDLC_PACK.name,
        slug: PDLC_PACK.slug,
        description: PDLC_PACK.description,
        domain: PDLC_PACK.domain,
        stages: [...PDLC_PACK.stages],
        version: 1,
      }),
    );
    await replaceGraph(m, wf.id, checked.graph);
    result.workflows++;
  }

  /** name → id of the system records with these names (the oldest wins if a name repeats). */
  private async systemByName<T extends Agent | Skill>(
    records: OwnedRecords<T>,
    m: EntityManager,
    names: string[],
  ): Promise<Map<string, number>> {
    const rows = await records
      .visible(null, 'r', m)
      .andWhere('r.name IN (:...names)', { names })
      .orderBy('r.id', 'ASC')
      .getMany();
    const byName = new Map<string, number>();
    for (const r of rows) if (!byName.has(r.name)) byName.set(r.name, r.id);
    return byName;
  }
}
