/** Shared by the workflow services: the record shape, slug allocation and the locked write lookup. */
import type { EntityManager } from 'typeorm';
import { QueryFailedError } from 'typeorm';
import type { AuthUser } from '../auth/user.entity';
import { DomainError } from '../../platform/errors/domain-error';
import { assertWritable, type OwnedRecords } from '../../platform/ownership/owned-records';
import { Workflow } from './workflow.entity';
import { isDbId } from '../../platform/database/db-id';
import { firstFreeSlug } from './workflow-rules';

export interface WorkflowRecord {
  id: number;
  owner_id: number | null;
  is_system: boolean;
  name: string;
  slug: string;
  description: string;
  domain: string;
  stages: string[];
  version: number;
  created_at: Date;
  updated_at: Date;
}

export function toRecord(w: Workflow): WorkflowRecord {
  return {
    id: w.id,
    owner_id: w.owner_id,
    is_system: w.is_system,
    name: w.name,
    slug: w.slug,
    description: w.description,
    domain: w.domain,
    stages: w.stages,
    version: w.version,
    created_at: w.created_at,
    updated_at: w.updated_at,
  };
}

export const workflowNotFound = (id: unknown) => new DomainError('not_found', `Workflow ${String(id)} not found`);

/**
 * The workflow `id` as `user` may change it, locked FOR UPDATE until the transaction ends (so graph
 * saves, stage edits and deletes of one workflow are serialised): 404 when not visible, 403 for system.
 */
export async function lockWritable(
  records: OwnedRecords<Workflow>,
  m: EntityManager,
  user: AuthUser,
  id: number,
): Promise<Workflow> {
  if (!isDbId(id)) throw workflowNotFound(id);
  const row = await records.visible(user, 'w', m).andWhere('w.id = :id', { id }).setLock('pessimistic_write').getOne();
  if (!row) throw workflowNotFound(id);
  assertWritable(row, 'workflow');
  return row;
}

/** Visible to `user` (own or system), or 404 — also for ids no integer column can hold. */
export async function findVisible(
  records: OwnedRecords<Workflow>,
  user: AuthUser | null,
  id: number,
  m?: EntityManager,
): Promise<Workflow> {
  if (!isDbId(id)) throw workflowNotFound(id);
  return records.findVisible(user, id, m);
}

/**
 * The slug a new or renamed workflow gets. An explicit slug must be free among the caller's own
 * workflows (409 otherwise). A derived one takes the first free `base`, `base-2`, … avoiding the
 * caller's slugs and the system packs' slugs, so `/agent/workflows` never shows two packs with one slug.
 */
export async function claimSlug(
  records: OwnedRecords<Workflow>,
  m: EntityManager,
  user: AuthUser,
  explicit: string | undefined,
  base: string,
  exceptId?: number,
): Promise<string> {
  if (explicit !== undefined) {
    const same = await records
      .visible(user, 'w', m)
      .select(['w.id', 'w.slug', 'w.is_system'])
      .andWhere('w.slug = :slug', { slug: explicit })
      .getMany();
    if (same.some((w) => !w.is_system && w.id !== exceptId)) throw duplicateSlug(explicit);
    return explicit;
  }
  const taken = await records
    .visible(user, 'w', m)
    .select(['w.id', 'w.slug', 'w.is_system'])
    .andWhere('w.slug LIKE :prefix', { prefix: `${base.slice(0, 40)}%` })
    .getMany();
  return firstFreeSlug(base, new Set(taken.filter((w) => w.id !== exceptId).map((w) => w.slug)));
}

export const duplicateSlug = (slug: string) =>
  new DomainError('record.duplicate', `You already have a workflow with the slug "${slug}"; choose another slug.`, [
    { field: 'slug', message: `"${slug}" is already used by one of your workflows` },
  ]);

const isUniqueViolation = (err: unknown) =>
  err instanceof QueryFailedError && (err as unknown as { code?: string }).code === '23505';

/**
 * Runs `work` again when a concurrent request took the derived slug between our check and our insert
 * (the unique index answers 23505). With an explicit slug the clash is the caller's: 409 at once.
 */
export async function withSlugRetry<T>(explicit: string | undefined, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (explicit !== undefined) throw duplicateSlug(explicit);
      if (attempt >= 3) throw err;
    }
  }
}
