/**
 * Skills: prompt overlays with tool allowlists, scoped by OwnedRecords. Agents reference skills by id
 * (`agents.skill_ids`, an array without a foreign key), so deleting one checks its referrers under a
 * row lock in the same transaction.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { DomainError } from '../../platform/errors/domain-error';
import { AGENTS, referenced } from '../../platform/errors/referenced';
import { OwnedRecords } from '../../platform/ownership/owned-records';
import type { AuthUser } from '../auth/user.entity';
import type { CreateSkillDto, UpdateSkillDto } from './dto/skill.dto';
import { Skill } from './skill.entity';
import { approvalPatch, normaliseApprovalList, normaliseToolAllowlist } from './tool-allowlist';

/** How many referrers a 409 detail names. */
const MAX_NAMED_REFERRERS = 20;

@Injectable()
export class SkillsService {
  readonly records: OwnedRecords<Skill>;

  constructor(@InjectDataSource() private readonly ds: DataSource) {
    this.records = new OwnedRecords(ds.getRepository(Skill), 'skill');
  }

  list(user: AuthUser): Promise<Skill[]> {
    return this.records.list(user);
  }

  get(user: AuthUser, id: number): Promise<Skill> {
    return this.records.findVisible(user, id);
  }

  async create(user: AuthUser, dto: CreateSkillDto): Promise<Skill> {
    const tools = normaliseToolAllowlist(dto.tool_allowlist ?? []);
    const approval = normaliseApprovalList(dto.tools_requiring_approval ?? [], tools);
    const repo = this.records.repository();
    const saved = await repo.save(
      repo.create({
        owner_id: user.id,
        is_system: false,
        name: dto.name,
        description: dto.description ?? '',
        prompt_md: dto.prompt_md ?? '',
        tool_allowlist: tools,
        tools_requiring_approval: approval,
        artifact_hint: dto.artifact_hint ?? '',
      }),
    );
    return this.records.findVisible(user, saved.id);
  }

  async update(user: AuthUser, id: number, dto: UpdateSkillDto): Promise<Skill> {
    const stored = await this.records.findWritable(user, id);
    const patch: Partial<Skill> = {};
    if (dto.name !== undefined) patch.name = dto.name;
    if (dto.description !== undefined) patch.description = dto.description;
    if (dto.prompt_md !== undefined) patch.prompt_md = dto.prompt_md;
    if (dto.tool_allowlist !== undefined) patch.tool_allowlist = normaliseToolAllowlist(dto.tool_allowlist);
    if (dto.artifact_hint !== undefined) patch.artifact_hint = dto.artifact_hint;
    const approval = approvalPatch(
      dto.tools_requiring_approval,
      stored.tools_requiring_approval,
      patch.tool_allowlist ?? stored.tool_allowlist,
    );
    if (approval) patch.tools_requiring_approval = approval;
    if (Object.keys(patch).length) await this.records.repository().update({ id }, patch);
    return this.records.findVisible(user, id);
  }

  /** 409 naming the agents that use the skill; the check and the delete are one transaction. */
  async remove(user: AuthUser, id: number): Promise<void> {
    await this.ds.transaction(async (m) => {
      const skill = await this.lockWritable(user, id, m);
      const users: Array<{ id: number; name: string; total: string | number }> = await m.query(
        `SELECT id, name, count(*) OVER () AS total FROM agents WHERE $1 = ANY(skill_ids) ORDER BY id LIMIT ${MAX_NAMED_REFERRERS}`,
        [id],
      );
      if (users.length)
        throw referenced(
          `The skill "${skill.name}"`,
          AGENTS,
          users.map((a) => a.name),
          Number(users[0].total),
          'remove it from them, or delete them, first',
        );
      await this.records.repository(m).delete({ id });
    });
  }

  /**
   * findWritable (404 / 403 "clone it"), then the row locked until the transaction ends: an agent
   * saved concurrently either commits first (and is seen as a referrer) or finds the skill gone.
   */
  private async lockWritable(user: AuthUser, id: number, m: EntityManager): Promise<Skill> {
    await this.records.findWritable(user, id, m);
    const row = await this.records
      .visible(user, 'r', m)
      .andWhere('r.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
    if (!row) throw new DomainError('not_found', `Skill ${id} not found`);
    return row;
  }
}
