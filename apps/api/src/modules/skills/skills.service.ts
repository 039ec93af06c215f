/** Skills: prompt overlays with tool allowlists. */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError } from '../../platform/errors/domain-error';
import { OwnedRecords } from '../../platform/ownership/owned-records';
import type { AuthUser } from '../auth/user.entity';
import type { CreateSkillDto, UpdateSkillDto } from './dto/skill.dto';
import { Skill } from './skill.entity';

const unique = (xs: string[] | undefined) => (xs ? [...new Set(xs)] : undefined);

@Injectable()
export class SkillsService {
  readonly records: OwnedRecords<Skill>;

  constructor(@InjectDataSource() private readonly ds: DataSource) {
    this.records = new OwnedRecords(ds.getRepository(Skill), 'skill');
  }

  list(user: AuthUser) {
    return this.records.list(user);
  }

  get(user: AuthUser, id: number) {
    return this.records.findVisible(user, id);
  }

  async create(user: AuthUser, dto: CreateSkillDto) {
    const repo = this.records.repository();
    return repo.save(repo.create({ ...dto, tool_allowlist: unique(dto.tool_allowlist) ?? [], owner_id: user.id, is_system: false }));
  }

  async update(user: AuthUser, id: number, dto: UpdateSkillDto) {
    await this.records.findWritable(user, id);
    const patch = { ...dto, ...(dto.tool_allowlist ? { tool_allowlist: unique(dto.tool_allowlist) } : {}) };
    if (Object.keys(patch).length) await this.records.repository().update({ id }, patch);
    return this.records.findVisible(user, id);
  }

  async remove(user: AuthUser, id: number) {
    await this.ds.transaction(async (m) => {
      const skill = await this.records.findWritable(user, id, m);
      const users: Array<{ id: number; name: string }> = await m.query(
        'SELECT id, name FROM agents WHERE $1 = ANY(skill_ids) ORDER BY id LIMIT 20 FOR UPDATE',
        [id],
      );
      if (users.length) {
        throw new DomainError('record.referenced', `Skill ${skill.id} is used by agents: ${users.map((a) => `${a.name} (${a.id})`).join(', ')}.`);
      }
      await m.getRepository(Skill).delete({ id });
    });
  }
}
