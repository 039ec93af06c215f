/**
 * Admission of turns (docs/API.md "Turns", docs/OPERATIONS.md "Limits", docs/decisions/runtime.md
 * "Admission: one statement"): one running turn per project
 * (`409 turn_in_progress` naming it; `409 approval_pending` while its turn waits for a tool call's approval) and at most MAX_RUNS_PER_USER running turns per user (`429`), decided
 * in the database so that concurrent requests cannot both get in; demo runs are capped per client. With
 * `multitask: "enqueue"` a turn for a busy project waits for the running one to end instead of 409.
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryFailedError, type EntityManager } from 'typeorm';
import { APP_CONFIG, isCluster, type AppConfig } from '../../platform/config/app-config';
import { DomainError } from '../../platform/errors/domain-error';
import { SharedSlots } from '../limits/shared-slots';
import type { Project } from '../projects/project.entity';
import { RunHub } from './run-hub';

const RETRY_AFTER_S = '5';

/** What `turn_admission()` (migration 1732300000074) read under the user's lock. */
export interface AdmissionFacts {
  admitted: boolean;
  stage: string | null;
  awaiting_gate: Project['awaiting_gate'];
  blocking_id: string | null;
  blocking_state: string | null;
  running: number;
  /** the project's last messages with content, oldest first (without the one being admitted) */
  recent: Array<{ role: 'user' | 'assistant'; content: string }>;
}

/** What the admitting statement passes to `turn_admission()` besides the user and the project. */
export interface AdmissionParams {
  /** MAX_RUNS_PER_USER */
  maxRunning: number;
}

/**
 * The statement that admits a turn: it calls `turn_admission()` as a CTE named `a` and inserts only
 * `WHERE a.admitted`; resolves to what `a` read (undefined: the project is gone).
 */
export type AdmitStatement = (m: EntityManager, params: AdmissionParams) => Promise<AdmissionFacts | undefined>;

/** A refused admission in cluster mode: rolls the (empty) transaction back, carrying the facts out. */
class Refused extends Error {
  constructor(readonly facts: AdmissionFacts | undefined) {
    super('turn not admitted');
  }
}

/** how often an enqueued turn looks again at a running turn that is not live in this process */
const ENQUEUE_POLL_MS = 250;

function delay(ms: number) {
  return new Promise<void>((resolve) => setTimeout(resolve, ms));
}

export const turnInProgress = (slug: string, runId: string) =>
  new DomainError(
    'turn_in_progress',
    `A turn is still running on project ${slug} (run ${runId}): wait for it to end or cancel it.`,
    undefined,
    undefined,
    { run_id: runId },
  );

/** A project whose turn stopped at a tool call awaiting approval takes no new turn until it is decided. */
export const approvalPending = (slug: string, runId: string) =>
  new DomainError(
    'approval_pending',
    `A turn on project ${slug} (run ${runId}) is waiting for a tool call to be approved: decide it (POST /agent/runs/${runId}/approvals/{call_id}) first.`,
    undefined,
    undefined,
    { run_id: runId },
  );

/** The 409 for a project whose unfinished turn (running, or awaiting approval) kept a turn out. */
export async function unfinishedTurn(
  ds: DataSource,
  project: Pick<Project, 'id' | 'slug'>,
): Promise<DomainError | null> {
  const [other]: Array<{ id: string; state: string }> = await ds.query(
    `SELECT id, state FROM runs WHERE project_id = $1 AND state IN ('running', 'awaiting_approval')`,
    [project.id],
  );
  if (!other) return null;
  return other.state === 'awaiting_approval'
    ? approvalPending(project.slug, other.id)
    : turnInProgress(project.slug, other.id);
}

@Injectable()
export class RunAdmission {
  /** ROLE=all: demo runs in flight per client key (demo runs belong to no user row to lock) */
  private readonly demo = new Map<string, number>();
  /** per project, the last enqueued turn still waiting for its admission (multitask: "enqueue") */
  private readonly waiting = new Map<number, Promise<void>>();

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly hub: RunHub,
    private readonly slots: SharedSlots,
  ) {}

  /**
   * Admits a turn and runs `insert`, whose one statement must call `turn_admission()` (AdmitStatement) and
   * insert the run only `WHERE a.admitted`: the user's row lock serialises their admissions, and the
   * function reads, under it, the project's unfinished turn, the user's running turns, the project's
   * current stage and gate and the recent history (migration 1732300000074). A refusal becomes the
   * 409/429 here; an admitted project gets the stage and gate it has now (a turn that ended just before
   * may have moved them). With ROLE=all that statement is the whole admission; in cluster mode it runs
   * in a transaction with whatever `insert` adds (the queued event and job). The partial unique index on
   * runs(project_id) backs the per-project rule for any other writer.
   */
  async admit(project: Project, enqueue: boolean, insert: AdmitStatement): Promise<AdmissionFacts> {
    if (!enqueue) return this.admitNow(project, insert);
    // double-texting with `multitask: "enqueue"`: the turns of one project wait here in arrival order
    // (in this process), each admitted once the turn before it has ended — never two at once
    const before = this.waiting.get(project.id) ?? Promise.resolve();
    const mine = before.then(() => this.admitWhenFree(project, insert));
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    this.waiting.set(project.id, tail);
    void tail.then(() => this.waiting.get(project.id) === tail && this.waiting.delete(project.id));
    return mine;
  }

  /** Admits once the project's running turn has ended (at most TURN_TIMEOUT_MS of waiting, then 409). */
  private async admitWhenFree(project: Project, insert: AdmitStatement): Promise<AdmissionFacts> {
    const deadline = Date.now() + this.config.turnTimeoutMs;
    for (;;) {
      try {
        return await this.admitNow(project, insert);
      } catch (e) {
        const running = e instanceof DomainError && e.code === 'turn_in_progress' ? e.extra?.run_id : undefined;
        if (typeof running !== 'string' || Date.now() > deadline) throw e;
        // the hub says when a live run has ended; a run settling or not live here is polled
        await (this.hub.whenEnded(running) ?? delay(ENQUEUE_POLL_MS));
      }
    }
  }

  private async admitNow(project: Project, insert: AdmitStatement): Promise<AdmissionFacts> {
    const params = { maxRunning: this.config.maxRunsPerUser };
    let facts: AdmissionFacts | undefined;
    try {
      facts = isCluster(this.config)
        ? await this.ds.transaction(async (m) => {
            const f = await insert(m, params);
            // nothing was inserted: end the transaction before the caller's other writes
            if (!f?.admitted) throw new Refused(f);
            return f;
          })
        : await insert(this.ds.manager, params);
    } catch (e) {
      if (e instanceof Refused) facts = e.facts;
      else if (e instanceof QueryFailedError && (e as unknown as { code?: string }).code === '23505')
        // the one-unfinished-turn index (running or awaiting approval; migration 1732300000045)
        throw (await unfinishedTurn(this.ds, project)) ?? e;
      else throw e;
    }
    if (!facts) throw new DomainError('not_found', `Project ${project.slug} not found`);
    if (!facts.admitted) {
      if (facts.blocking_id)
        throw facts.blocking_state === 'awaiting_approval'
          ? approvalPending(project.slug, facts.blocking_id)
          : turnInProgress(project.slug, facts.blocking_id);
      throw new DomainError(
        'runs.too_many',
        `At most ${this.config.maxRunsPerUser} turns may run at once per user; wait for one to end.`,
        undefined,
        { 'Retry-After': RETRY_AFTER_S },
      );
    }
    project.stage = facts.stage;
    project.awaiting_gate = facts.awaiting_gate;
    return facts;
  }

  /**
   * Takes one of a client's demo-run slots (429 beyond MAX_DEMO_RUNS_PER_CLIENT); resolves to the
   * idempotent release. Counted in this process with ROLE=all; across the cluster's processes otherwise
   * (limits/shared-slots.ts).
   */
  async acquireDemo(client: string): Promise<() => void> {
    const tooMany = () =>
      new DomainError(
        'runs.too_many',
        `At most ${this.config.maxDemoRunsPerClient} demo turns may run at once per client; wait for one to end.`,
        undefined,
        { 'Retry-After': RETRY_AFTER_S },
      );
    if (this.slots.enabled) {
      const release = await this.slots.acquire(`demo:${client}`, this.config.maxDemoRunsPerClient);
      if (!release) throw tooMany();
      return release;
    }
    const n = this.demo.get(client) ?? 0;
    if (n >= this.config.maxDemoRunsPerClient) throw tooMany();
    this.demo.set(client, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.demo.get(client) ?? 1) - 1;
      if (left <= 0) this.demo.delete(client);
      else this.demo.set(client, left);
    };
  }
}
