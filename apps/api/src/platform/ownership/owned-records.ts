/**
 * Ownership in one place (docs/API.md): a user sees system records plus their own; another user's record
 * is 404 (never 403, never its content); system records are read-only (403, "clone it").
 * Services hold one OwnedRecords per entity and never write `where: { owner_id }` themselves.
 */
import {
  Brackets,
  In,
  type EntityManager,
  type ObjectLiteral,
  type Repository,
  type SelectQueryBuilder,
} from 'typeorm';
import type { AuthUser } from '../../modules/auth/user.entity';
import { DomainError } from '../errors/domain-error';
import type { OwnedEntity } from './owned.entity';
import { isDbId } from '../database/db-id';

export class OwnedRecords<T extends OwnedEntity & ObjectLiteral> {
  constructor(
    private readonly repo: Repository<T>,
    /** A human name for messages: "model", "skill", … */
    readonly noun: string,
  ) {}

  /** The repository bound to a transaction's manager, or the default one. */
  repository(m?: EntityManager): Repository<T> {
    return m ? m.getRepository<T>(this.repo.target) : this.repo;
  }

  /** A query builder already limited to what `user` may see (own + system). */
  visible(user: AuthUser | null, alias = 'r', m?: EntityManager): SelectQueryBuilder<T> {
    const qb = this.repository(m).createQueryBuilder(alias);
    return qb.where(
      new Brackets((w) => {
        w.where(`${alias}.is_system = true`);
        if (user) w.orWhere(`${alias}.owner_id = :__owner`, { __owner: user.id });
      }),
    );
  }

  /** Own + system, newest first. */
  list(user: AuthUser | null, m?: EntityManager): Promise<T[]> {
    return this.visible(user, 'r', m).orderBy('r.created_at', 'DESC').addOrderBy('r.id', 'DESC').getMany();
  }

  async findVisible(user: AuthUser | null, id: number, m?: EntityManager): Promise<T> {
    if (!isDbId(id)) throw new DomainError('not_found', `${this.noun} not found`);
    const row = await this.visible(user, 'r', m).andWhere('r.id = :__id', { __id: id }).getOne();
    if (!row) throw new DomainError('not_found', `${cap(this.noun)} ${id} not found`);
    return row;
  }

  /** Visible and changeable by `user`: 404 when not visible, 403 when it is a system record. */
  async findWritable(user: AuthUser, id: number, m?: EntityManager): Promise<T> {
    const row = await this.findVisible(user, id, m);
    assertWritable(row, this.noun);
    return row;
  }

  /** Checks references: every id must be visible to `user`; else a 400 naming the field. */
  async assertVisible(user: AuthUser | null, ids: number[], field: string, m?: EntityManager): Promise<T[]> {
    const unique = [...new Set(ids)];
    if (!unique.length) return [];
    const rows = await this.visible(user, 'r', m)
      .andWhere({ id: In(unique) })
      .getMany();
    const found = new Set(rows.map((r) => r.id));
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length) {
      throw new DomainError('validation', `Unknown ${this.noun} reference.`, [
        { field, message: `${this.noun} ${missing.join(', ')} does not exist or is not visible to you` },
      ]);
    }
    return rows;
  }
}

/**
 * The same scope for hand-written SQL on hot paths: `(alias.is_system OR alias.owner_id = <param>)`,
 * where `ownerParam` (e.g. `$2`) is bound to the user's id, or to null for anonymous callers (system only).
 */
export function visibleSql(alias: string, ownerParam: string): string {
  return `(${alias}.is_system OR ${alias}.owner_id = ${ownerParam})`;
}

export function assertWritable(row: OwnedEntity, noun: string) {
  if (row.is_system) {
    throw new DomainError(
      'record.system_readonly',
      `This ${noun} is a system record and is read-only: clone it to make your own copy.`,
    );
  }
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
