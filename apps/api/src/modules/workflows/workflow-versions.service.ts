/**
 * Workflow versions (docs/decisions/workflows.md, "Versions"): list a workflow's kept versions, read one,
 * restore one. A restore is an ordinary graph save of the old graph — validated against today's stages
 * and agents, and making a new version — so history is only ever added to.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError } from '../../platform/errors/domain-error';
import type { AuthUser } from '../auth/user.entity';
import type { RestoreVersionDto, VersionsQueryDto } from './dto/workflow-version.dto';
import { loadGraph } from './graph-store';
import { findVisible } from './workflow-records';
import { WorkflowsService, type SavedGraph } from './workflows.service';

interface SummaryRow {
  version: number;
  saved_at: Date;
  node_count: number;
  edge_count: number;
}

@Injectable()
export class WorkflowVersionsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly workflows: WorkflowsService,
  ) {}

  /** Newest first; the current version is listed even before its first save kept it. */
  async list(user: AuthUser, id: number, q: VersionsQueryDto) {
    const take = q.limit ?? 50;
    return this.ds.transaction('REPEATABLE READ', async (m) => {
      const wf = await findVisible(this.workflows.records, user, id, m);
      const rows: SummaryRow[] = await m.query(
        `SELECT version, created_at AS saved_at, jsonb_array_length(nodes) AS node_count, jsonb_array_length(edges) AS edge_count
           FROM workflow_versions WHERE workflow_id = $1 AND ($2::int IS NULL OR version < $2) ORDER BY version DESC LIMIT $3`,
        [wf.id, q.before ?? null, take],
      );
      const listsCurrent = q.before === undefined || q.before > wf.version;
      if (listsCurrent && rows[0]?.version !== wf.version) {
        const live = await loadGraph(m, wf.id);
        rows.unshift({
          version: wf.version,
          saved_at: wf.updated_at,
          node_count: live.nodes.length,
          edge_count: live.edges.length,
        });
        if (rows.length > take) rows.pop();
      }
      return {
        versions: rows.map((r) => ({ ...r, current: r.version === wf.version })),
        next_before: rows.length === take ? rows[rows.length - 1].version : null,
      };
    });
  }

  /** One version's graph; 404 for a version never kept. */
  async get(user: AuthUser, id: number, version: number) {
    return this.ds.transaction('REPEATABLE READ', async (m) => {
      const wf = await findVisible(this.workflows.records, user, id, m);
      const [row]: Array<SummaryRow & { nodes: unknown[]; edges: unknown[] }> = await m.query(
        `SELECT version, created_at AS saved_at, jsonb_array_length(nodes) AS node_count, jsonb_array_length(edges) AS edge_count, nodes, edges
           FROM workflow_versions WHERE workflow_id = $1 AND version = $2`,
        [wf.id, version],
      );
      if (row) return { ...row, current: row.version === wf.version };
      if (version !== wf.version)
        throw new DomainError('not_found', `The workflow "${wf.name}" has no version ${version}.`);
      const live = await loadGraph(m, wf.id);
      return {
        version,
        saved_at: wf.updated_at,
        node_count: live.nodes.length,
        edge_count: live.edges.length,
        current: true,
        ...live,
      };
    });
  }

  /** Saves version `version`'s graph as the newest version (a 400 when it no longer fits the workflow). */
  async restore(user: AuthUser, id: number, version: number, dto: RestoreVersionDto): Promise<SavedGraph> {
    const old = await this.get(user, id, version);
    return this.workflows.saveGraph(user, id, {
      nodes: old.nodes,
      edges: old.edges,
      ...(dto.version !== undefined ? { version: dto.version } : {}),
    });
  }
}
