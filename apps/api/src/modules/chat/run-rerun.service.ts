/**
 * Rerun from a node (docs/decisions/runtime.md, "Rerun from a node"): `POST /agent/runs/{id}/rerun`.
 * A new project turn that starts at a node the finished original visited, with the original's user
 * message (or a new one), the project's stage set to the node's stage, and the history context the
 * original had. With `restore_workspace`, every file the original changed at or after that node gets
 * back, as new revisions, the content it had when the original entered the node.
 */
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainError, invalid } from '../../platform/errors/domain-error';
import type { AuthUser } from '../auth/user.entity';
import { WorkspaceService } from '../projects/workspace.service';
import type { ChatMessage } from '../runtime/providers/provider';
import { ChatService } from './chat.service';
import type { RerunDto } from './dto/rerun.dto';

const RERUNNABLE = ['done', 'error', 'cancelled'];
const HISTORY_FOR_CONTEXT = 20;

interface Revision {
  path: string;
  revision: number;
  idempotency_key: string | null;
}

@Injectable()
export class RunRerun {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly chat: ChatService,
    private readonly workspace: WorkspaceService,
  ) {}

  async rerun(user: AuthUser, runId: string, dto: RerunDto): Promise<{ run_id: string }> {
    const run = await this.chat.findRunFor(user, runId);
    if (run.owner_id !== user.id || run.project_id === null)
      throw new DomainError('not_found', `Run ${runId} not found`);
    if (!RERUNNABLE.includes(run.state))
      throw new DomainError(
        'run.not_rerunnable',
        `Run ${runId} cannot be rerun (state: ${run.state}); only a finished run (done, error, cancelled) can.`,
      );
    if (run.workflow_id === null)
      throw new DomainError('run.not_rerunnable', `The pack run ${runId} ran has been deleted.`);
    // the nodes the original visited, in order: visit n keys its writes `<run>:<n>…` (runtime/turn-runner.ts)
    const started: Array<{ node_key: string }> = await this.ds.query(
      `SELECT data->>'node_key' AS node_key FROM run_events
        WHERE run_id = $1 AND event = 'node' AND data->>'state' = 'started' ORDER BY seq`,
      [runId],
    );
    const visit = started.findIndex((e) => e.node_key === dto.node_key) + 1;
    if (!visit) throw invalid([{ field: 'node_key', message: `run ${runId} did not visit this node` }]);
    const [node]: Array<{ stage_label: string | null }> = await this.ds.query(
      'SELECT stage_label FROM workflow_nodes WHERE workflow_id = $1 AND node_key = $2',
      [run.workflow_id, dto.node_key],
    );
    if (!node) throw invalid([{ field: 'node_key', message: 'the pack has no such node any more' }]);
    const [original]: Array<{ content: string }> = await this.ds.query(
      `SELECT content FROM messages WHERE run_id = $1 AND role = 'user' ORDER BY id LIMIT 1`,
      [runId],
    );
    const [project]: Array<{ slug: string }> = await this.ds.query('SELECT slug FROM projects WHERE id = $1', [
      run.project_id,
    ]);
    const turn = await this.chat.startProjectTurn(
      user,
      {
        project_slug: project.slug,
        pack_id: run.workflow_id,
        ...(node.stage_label ? { stage: node.stage_label } : {}),
        node_key: dto.node_key,
        message: dto.message ?? original?.content ?? '',
      },
      'stream',
      {
        rerunOf: runId,
        history: await this.historyBefore(run.project_id, runId, run.created_at),
        beforeRun: dto.restore_workspace
          ? (newRunId) => this.restoreWorkspace(run.project_id!, runId, visit, newRunId)
          : undefined,
      },
    );
    turn.result.catch(() => undefined);
    return { run_id: turn.runId };
  }

  /** The model's history context as it was when the original started: the messages before its run. */
  private async historyBefore(projectId: number, runId: string, createdAt: Date): Promise<ChatMessage[]> {
    const rows: Array<{ role: 'user' | 'assistant'; content: string }> = await this.ds.query(
      `SELECT role, content FROM messages
        WHERE project_id = $1 AND content <> '' AND run_id IS DISTINCT FROM $2 AND created_at < $3
        ORDER BY id DESC LIMIT ${HISTORY_FOR_CONTEXT}`,
      [projectId, runId, createdAt],
    );
    return rows.reverse().map((m) => ({ role: m.role, content: m.content }));
  }

  /**
   * Every file the original changed at or after visit `visit` gets back the content it had before its
   * first such change (as a new revision attributed to the rerun), or is deleted if it did not exist then.
   * A revision of the run without an idempotency key counts as changed at or after the node.
   */
  private async restoreWorkspace(projectId: number, runId: string, visit: number, newRunId: string) {
    const revisions: Revision[] = await this.ds.query(
      `SELECT path, revision, idempotency_key FROM file_revisions
        WHERE project_id = $1 AND run_id = $2 ORDER BY path, revision`,
      [projectId, runId],
    );
    const firstChange = new Map<string, number>();
    for (const r of revisions) {
      if (firstChange.has(r.path) || visitOf(r.idempotency_key, runId) < visit) continue;
      firstChange.set(r.path, Number(r.revision));
    }
    for (const [path, revision] of firstChange) {
      const before = revision > 1 ? await this.workspace.read(projectId, path, revision - 1) : null;
      const current = await this.workspace.read(projectId, path);
      if (before) await this.workspace.write(projectId, path, before.content, newRunId);
      else if (current) await this.workspace.remove(projectId, path, newRunId);
    }
  }
}

/** The visit a write of the run was made in, from its key `<run>:<visit>…`; keyless: the last possible. */
function visitOf(key: string | null, runId: string): number {
  const m = key?.startsWith(`${runId}:`) ? /^(\d+)/.exec(key.slice(runId.length + 1)) : null;
  return m ? Number(m[1]) : Number.MAX_SAFE_INTEGER;
}
