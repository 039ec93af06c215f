/**
 * Agents: a model, skills, a role and a prompt, scoped by OwnedRecords. References (model, skills)
 * must be visible to the caller when saved, checked under a share lock in the saving transaction so
 * a concurrent delete of the referenced record cannot slip between the check and the write.
 * `resolveForRuntime` assembles what the runtime needs to run the agent.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, type EntityManager } from 'typeorm';
import { referenced } from '../../platform/errors/referenced';
import { OwnedRecords, visibleSql } from '../../platform/ownership/owned-records';
import type { AuthUser } from '../auth/user.entity';
import { Model } from '../models/model.entity';
import { ModelsService } from '../models/models.service';
import type { ResolvedAgent, ResolvedModel } from '../runtime/runtime.types';
import { Skill } from '../skills/skill.entity';
import { SkillsService } from '../skills/skills.service';
import { isMcpToolName } from '../mcp-servers/mcp-tool-name';
import { approvalPatch, isToolName, normaliseApprovalList, normaliseToolAllowlist } from '../skills/tool-allowlist';
import { Agent } from './agent.entity';
import { DEFAULT_MAX_ITERATIONS, type CreateAgentDto, type UpdateAgentDto } from './dto/agent.dto';
import { isDbId } from '../../platform/database/db-id';

/** How many referrers a 409 detail names. */
const MAX_NAMED_REFERRERS = 20;

const uniq = <T>(xs: readonly T[]): T[] => [...new Set(xs)];

interface RuntimeSkill {
  id: number;
  prompt_md: string;
  tool_allowlist: string[];
  tools_requiring_approval: string[];
}

/** One row of resolveForRuntime's statement: the agent, its model's columns (m_*) and its visible skills. */
interface RuntimeAgentRow {
  id: number;
  name: string;
  role: string;
  system_prompt: string;
  model_id: number | null;
  skill_ids: number[];
  tool_allowlist: string[];
  tools_requiring_approval: string[];
  max_iterations: number;
  m_id: number | null;
  m_provider: Model['provider'];
  m_model_id: string;
  m_api_base: string | null;
  m_api_key_sealed: string | null;
  m_temperature: number | null;
  m_max_tokens: number | null;
  skills: RuntimeSkill[];
}

@Injectable()
export class AgentsService {
  readonly records: OwnedRecords<Agent>;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly models: ModelsService,
    private readonly skills: SkillsService,
  ) {
    this.records = new OwnedRecords(ds.getRepository(Agent), 'agent');
  }

  list(user: AuthUser): Promise<Agent[]> {
    return this.records.list(user);
  }

  get(user: AuthUser, id: number): Promise<Agent> {
    return this.records.findVisible(user, id);
  }

  async create(user: AuthUser, dto: CreateAgentDto): Promise<Agent> {
    const tools = normaliseToolAllowlist(dto.tool_allowlist ?? []);
    const approval = normaliseApprovalList(dto.tools_requiring_approval ?? [], tools);
    const skillIds = uniq(dto.skill_ids ?? []);
    return this.ds.transaction(async (m) => {
      await this.checkReferences(user, m, dto.model_id ?? null, skillIds);
      const repo = this.records.repository(m);
      const saved = await repo.save(
        repo.create({
          owner_id: user.id,
          is_system: false,
          name: dto.name,
          role: dto.role ?? '',
          system_prompt: dto.system_prompt ?? '',
          model_id: dto.model_id ?? null,
          skill_ids: skillIds,
          tool_allowlist: tools,
          tools_requiring_approval: approval,
          max_iterations: dto.max_iterations ?? DEFAULT_MAX_ITERATIONS,
        }),
      );
      return this.records.findVisible(user, saved.id, m);
    });
  }

  async update(user: AuthUser, id: number, dto: UpdateAgentDto): Promise<Agent> {
    return this.ds.transaction(async (m) => {
      const stored = await this.records.findWritable(user, id, m);
      const patch: Partial<Agent> = {};
      if (dto.name !== undefined) patch.name = dto.name;
      if (dto.role !== undefined) patch.role = dto.role;
      if (dto.system_prompt !== undefined) patch.system_prompt = dto.system_prompt;
      if (dto.model_id !== undefined) patch.model_id = dto.model_id;
      if (dto.skill_ids !== undefined) patch.skill_ids = uniq(dto.skill_ids);
      if (dto.tool_allowlist !== undefined) patch.tool_allowlist = normaliseToolAllowlist(dto.tool_allowlist);
      if (dto.max_iterations !== undefined) patch.max_iterations = dto.max_iterations;
      const approval = approvalPatch(
        dto.tools_requiring_approval,
        stored.tools_requiring_approval,
        patch.tool_allowlist ?? stored.tool_allowlist,
      );
      if (approval) patch.tools_requiring_approval = approval;
      await this.checkReferences(user, m, patch.model_id ?? null, patch.skill_ids ?? []);
      if (Object.keys(patch).length) await this.records.repository(m).update({ id }, patch);
      return this.records.findVisible(user, id, m);
    });
  }

  /** 409 naming the workflow nodes that use the agent; the check and the delete are one transaction. */
  async remove(user: AuthUser, id: number): Promise<void> {
    await this.ds.transaction(async (m) => {
      const agent = await this.records.findWritable(user, id, m);
      // Lock the row first: a graph saved concurrently either commits first (and is seen below) or
      // waits for this transaction and then fails its foreign key.
      await this.records.visible(user, 'r', m).andWhere('r.id = :id', { id }).setLock('pessimistic_write').getOne();
      const uses: Array<{ id: number; name: string; node_key: string; total: string | number }> = await m.query(
        `SELECT w.id, w.name, n.node_key, count(*) OVER () AS total
           FROM workflow_nodes n JOIN workflows w ON w.id = n.workflow_id
          WHERE n.agent_id = $1 ORDER BY w.id, n.ord LIMIT ${MAX_NAMED_REFERRERS}`,
        [id],
      );
      if (uses.length)
        throw referenced(
          `The agent "${agent.name}"`,
          { one: 'node', many: 'nodes' },
          uses.map((u) => `${u.node_key}" of "${u.name}`),
          Number(uses[0].total),
          'remove those nodes, or give them another agent, first',
        );
      await this.records.repository(m).delete({ id });
    });
  }

  /**
   * For the runtime: the agent (system or the user's own; anonymous = system only) with its skills'
   * prompts in `skill_ids` order, the union of its and its skills' tool allowlists, and its model with
   * the decrypted key (null = the server default model). Null when the agent, or the model it names,
   * is not visible: the runtime then reports the agent as missing rather than switch models silently.
   */
  async resolveForRuntime(user: AuthUser | null, agentId: number): Promise<ResolvedAgent | null> {
    if (!isDbId(agentId)) return null;
    // One statement per turn: the agent, its model (with the sealed key) and its visible skills.
    const rows: RuntimeAgentRow[] = await this.ds.query(
      `SELECT a.id, a.name, a.role, a.system_prompt, a.model_id, a.skill_ids, a.tool_allowlist, a.tools_requiring_approval, a.max_iterations,
              m.id AS m_id, m.provider AS m_provider, m.model_id AS m_model_id, m.api_base AS m_api_base,
              m.api_key_sealed AS m_api_key_sealed, m.temperature AS m_temperature, m.max_tokens AS m_max_tokens,
              (SELECT coalesce(json_agg(json_build_object('id', s.id, 'prompt_md', s.prompt_md, 'tool_allowlist', s.tool_allowlist, 'tools_requiring_approval', s.tools_requiring_approval)), '[]'::json)
                 FROM skills s WHERE s.id = ANY(a.skill_ids) AND ${visibleSql('s', '$2')}) AS skills
         FROM agents a
         LEFT JOIN models m ON m.id = a.model_id AND ${visibleSql('m', '$2')}
        WHERE a.id = $1 AND ${visibleSql('a', '$2')}`,
      [agentId, user?.id ?? null],
    );
    const agent = rows[0];
    if (!agent) return null;
    let model: ResolvedModel | null = null;
    if (agent.model_id != null) {
      if (agent.m_id == null) return null;
      model = this.models.toResolved({
        provider: agent.m_provider,
        model_id: agent.m_model_id,
        api_base: agent.m_api_base,
        api_key_sealed: agent.m_api_key_sealed,
        temperature: agent.m_temperature,
        max_tokens: agent.m_max_tokens,
      });
    }
    const byId = new Map(agent.skills.map((sk) => [sk.id, sk]));
    const skills = agent.skill_ids.map((id) => byId.get(id)).filter((sk): sk is RuntimeSkill => !!sk);
    return {
      id: agent.id,
      name: agent.name,
      role: agent.role,
      system_prompt: agent.system_prompt,
      skill_prompts: skills.map((sk) => sk.prompt_md).filter((p) => p.trim() !== ''),
      tools: uniq([...agent.tool_allowlist, ...skills.flatMap((sk) => sk.tool_allowlist)]).filter(isToolName),
      external_tools: uniq([...agent.tool_allowlist, ...skills.flatMap((sk) => sk.tool_allowlist)]).filter(
        isMcpToolName,
      ),
      // per-tool approval: the agent's own ∪ its skills' (docs/decisions/runtime.md)
      tools_requiring_approval: uniq([
        ...agent.tools_requiring_approval,
        ...skills.flatMap((sk) => sk.tools_requiring_approval),
      ]),
      max_iterations: agent.max_iterations,
      model,
    };
  }

  /**
   * Every referenced model and skill must be visible to `user` (400 naming `model_id` / `skill_ids`).
   * The rows are share-locked first, so a delete running now either finishes before the check (and the
   * reference is refused) or waits for this transaction (and then sees this agent as a referrer).
   */
  private async checkReferences(user: AuthUser, m: EntityManager, modelId: number | null, skillIds: number[]) {
    if (modelId != null) {
      await m
        .getRepository(Model)
        .createQueryBuilder('x')
        .select('x.id')
        .where({ id: modelId })
        .setLock('pessimistic_read')
        .getMany();
      await this.models.records.assertVisible(user, [modelId], 'model_id', m);
    }
    if (skillIds.length) {
      await m
        .getRepository(Skill)
        .createQueryBuilder('x')
        .select('x.id')
        .where({ id: In(skillIds) })
        .setLock('pessimistic_read')
        .getMany();
      await this.skills.records.assertVisible(user, skillIds, 'skill_ids', m);
    }
  }
}
