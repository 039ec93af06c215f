/** A project's conversation (docs/API.md "Turns"): user and assistant messages, newest page first. */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AuthUser } from '../auth/user.entity';
import { ProjectsService } from '../projects/projects.service';
import { Message } from './message.entity';

@Injectable()
export class HistoryService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly projects: ProjectsService,
  ) {}

  async history(user: AuthUser, slug: string, before?: number, limit = 50) {
    const project = await this.projects.findOwned(user, slug);
    const take = Math.min(Math.max(limit, 1), 200);
    const qb = this.ds.getRepository(Message).createQueryBuilder('m').where('m.project_id = :id', { id: project.id });
    if (before) qb.andWhere('m.id < :before', { before });
    const rows = await qb.orderBy('m.id', 'DESC').take(take).getMany();
    rows.reverse();
    // an assistant entry says whether its turn was resumed after a restart (its run started more than once)
    const runIds = [...new Set(rows.filter((m) => m.role === 'assistant' && m.run_id).map((m) => m.run_id!))];
    const found: Array<{ id: string }> = runIds.length
      ? await this.ds.query('SELECT id FROM runs WHERE id = ANY($1::uuid[]) AND attempts > 1', [runIds])
      : [];
    const resumed = new Set(found.map((r) => r.id));
    return {
      project_slug: project.slug,
      messages: rows.map((m) => ({
        id: m.id,
        run_id: m.run_id,
        role: m.role,
        content: m.content,
        stage: m.stage,
        node_key: m.node_key,
        agent_id: m.agent_id,
        tool_calls: m.tool_calls,
        state: m.state,
        error: m.error,
        stage_change: m.stage_change,
        pending_approval: m.pending_approval,
        resumed: m.role === 'assistant' && m.run_id !== null && resumed.has(m.run_id),
        created_at: m.created_at,
      })),
      next_before: rows.length === take ? rows[0].id : null,
    };
  }
}
