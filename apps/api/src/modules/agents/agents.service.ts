/** Agents: a model, skills, a role and a prompt. References must be visible to the caller. */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { DomainError } from '../../platform/errors/domain-error';
import { OwnedRecords } from '../../platform/ownership/owned-records';
import type { AuthUser } from '../auth/user.entity';
import { ModelsService } from '../models/models.service';
import { TOOL_NAMES, type ResolvedAgent, type ToolName } from '../runtime/runtime.types';
import { Skill } from '../skills/skill.entity';
import { SkillsService } from '../skills/skills.service';
import { Agent } from './agent.entity';
import type { CreateAgentDto, UpdateAgentDto } from './dto/agent.dto';

const uniq = <T>(xs: T[]) => [...new Set(xs)];

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

  list(user: AuthUser) {
    return this.records.list(user);
  }

  get(user: AuthUser, id: number) {
    return this.records.findVisible(user, id);
  }

  private async checkRefs(user: AuthUser, dto: { model_id?: number | null; skill_ids?: number[] }) {
    if (dto.model_id != null) await this.models.records.assertVisible(user, [dto.model_id], 'model_id');
    if (dto.skill_ids?.length) await this.skills.records.assertVisible(user, dto.skill_ids, 'skill_ids');
  }

  async create(user: AuthUser, dto: CreateAgentDto) {
    await this.checkRefs(user, dto);
    const repo = this.records.repository();
    return repo.save(
      repo.create({
        ...dto,
        model_id: dto.model_id ?? null,
        skill_ids: uniq(dto.skill_ids ?? []),
        tool_allowlist: uniq(dto.tool_allowlist ?? []),
        owner_id: user.id,
        is_system: false,
      }),
    );
  }

  async update(user: AuthUser, id: number, dto: UpdateAgentDto) {
    await this.records.findWritable(user, id);
    await this.checkRefs(user, dto);
    const patch: Partial<Agent> = { ...dto } as Partial<Agent>;
    if (dto.skill_ids) patch.skill_ids = uniq(dto.skill_ids);
    if (dto.tool_allowlist) patch.tool_allowlist = uniq(dto.tool_allowlist);
    if (Object.keys(patch).length) await this.records.repository().update({ id }, patch);
    return this.records.findVisible(user, id);
  }

  async remove(user: AuthUser, id: number) {
    await this.ds.transaction(async (m) => {
      const agent = await this.records.findWritable(user, id, m);
      const uses: Array<{ id: number; name: string; node_key: string }> = await m.query(
        `SELECT w.id, w.name, n.node_key FROM workflow_nodes n JOIN workflows w ON w.id = n.workflow_id
          WHERE n.agent_id = $1 ORDER BY w.id, n.ord LIMIT 20`,
        [id],
      );
      if (uses.length) {
        const list = uses.map((u) => `${u.name} (${u.id}) node ${u.node_key}`).join(', ');
        throw new DomainError('record.referenced', `Agent ${agent.id} is used by workflows: ${list}.`);
      }
      await m.getRepository(Agent).delete({ id });
    });
  }

  /** For the runtime: the agent with its skills' prompts, the union of tool allowlists and its model. */
  async resolveForRuntime(user: AuthUser | null, agentId: number): Promise<ResolvedAgent | null> {
    const agent = await this.records.visible(user).andWhere('r.id = :id', { id: agentId }).getOne();
    if (!agent) return null;
    const skills = agent.skill_ids.length
      ? await this.skills.records.visible(user, 's').andWhere({ id: In(agent.skill_ids) } as never).getMany()
      : [];
    const byId = new Map<number, Skill>(skills.map((s) => [s.id, s]));
    const ordered = agent.skill_ids.map((id) => byId.get(id)).filter((s): s is Skill => !!s);
    const tools = uniq([...agent.tool_allowlist, ...ordered.flatMap((s) => s.tool_allowlist)]).filter((t): t is ToolName =>
      (TOOL_NAMES as readonly string[]).includes(t),
    );
    return {
      id: agent.id,
      name: agent.name,
      role: agent.role,
      system_prompt: agent.system_prompt,
      skill_prompts: ordered.map((s) => s.prompt_md).filter(Boolean),
      tools,
      max_iterations: agent.max_iterations,
      model: agent.model_id ? await this.models.resolveForRuntime(user, agent.model_id) : null,
    };
  }
}
