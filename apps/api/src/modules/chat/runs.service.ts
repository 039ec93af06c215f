/**
 * Run inspection (docs/API.md "Runs"): one run, or the caller's runs newest first, keyset-paged on
 * (created_at, id). Read-only; turns are started and ended by ChatService.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { isUuid } from '../../platform/database/db-id';
import { DomainError } from '../../platform/errors/domain-error';
import type { AuthUser } from '../auth/user.entity';
import { ProjectsService } from '../projects/projects.service';

const RUN_SELECT = `SELECT r.id, r.owner_id, r.state, r.mode, p.slug AS project_slug, r.workflow_id, r.stage, r.node_key, r.usage, r.error,
                           r.attempts, r.last_seq, r.created_at, r.finished_at, r.pending_approval, r.rerun_of,
                           ARRAY(SELECT e.data->>'node_key' FROM run_events e
                                  WHERE e.run_id = r.id AND e.event = 'node' AND e.data->>'state' = 'started'
                                  GROUP BY e.data->>'node_key' ORDER BY min(e.seq)) AS visited_nodes
                      FROM runs r LEFT JOIN projects p ON p.id = r.project_id`;
interface RunRow {
  id: string;
  owner_id: number | null;
  state: string;
  mode: string;
  project_slug: string | null;
  workflow_id: number | null;
  stage: string | null;
  node_key: string | null;
  usage: { input_tokens: number; output_tokens: number };
  error: { code: string; message: string } | null;
  attempts: number;
  last_seq: number;
  created_at: Date;
  finished_at: Date | null;
  pending_approval: unknown;
  rerun_of: string | null;
  /** the nodes the run entered (each once); a rerun can start at any of them */
  visited_nodes: string[];
}
export type RunInfo = ReturnType<typeof runInfo>;
const runInfo = ({ owner_id: _owner, workflow_id, ...r }: RunRow) => ({ ...r, pack_id: workflow_id });

@Injectable()
export class RunsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly projects: ProjectsService,
  ) {}

  /** One run as the inspector shows it (docs/API.md "Runs"): the caller's own, or a demo run; 404 otherwise. */
  async get(user: AuthUser, runId: string): Promise<RunInfo> {
    const [row]: RunRow[] = isUuid(runId) ? await this.ds.query(`${RUN_SELECT} WHERE r.id = $1`, [runId]) : [];
    if (!row || (row.owner_id !== null && row.owner_id !== user.id))
      throw new DomainError('not_found', `Run ${runId} not found`);
    return runInfo(row);
  }

  /** The caller's runs, newest first, optionally of one project; `before` (a run id) pages back. */
  async list(user: AuthUser, q: { project_slug?: string; before?: string; limit?: number }) {
    const take = q.limit ?? 50;
    const params: unknown[] = [user.id];
    let where = 'r.owner_id = $1';
    if (q.project_slug) {
      const project = await this.projects.findOwned(user, q.project_slug);
      params.push(project.id);
      where += ` AND r.project_id = $${params.length}`;
    }
    if (q.before) {
      params.push(q.before);
      where += ` AND (r.created_at, r.id) < (SELECT created_at, id FROM runs WHERE id = $${params.length} AND owner_id = $1)`;
    }
    params.push(take);
    const rows: RunRow[] = await this.ds.query(
      `${RUN_SELECT} WHERE ${where} ORDER BY r.created_at DESC, r.id DESC LIMIT $${params.length}`,
      params,
    );
    return { runs: rows.map(runInfo), next_before: rows.length === take ? rows[rows.length - 1].id : null };
  }
}
