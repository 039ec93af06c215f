import type { PipeTransform } from '@nestjs/common';
import { DomainError } from '../errors/domain-error';

/** Ids are Postgres `integer`s: anything else cannot name a row (and must not reach a query). */
export const MAX_DB_ID = 2_147_483_647;

export const isDbId = (id: unknown): id is number =>
  typeof id === 'number' && Number.isSafeInteger(id) && id >= 1 && id <= MAX_DB_ID;

/** Run ids are Postgres `uuid`s: a string of another shape cannot name a row (and must not reach a query). */
export const UUID_SOURCE = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const UUID = new RegExp(`^${UUID_SOURCE}$`, 'i');
export const isUuid = (id: unknown): id is string => typeof id === 'string' && UUID.test(id);

/** After ParseIntPipe on an `:id` route: an integer no row can have is 404, not a database error. */
export class DbIdPipe implements PipeTransform<number, number> {
  constructor(private readonly what: string) {}
  transform(id: number): number {
    if (!isDbId(id)) throw new DomainError('not_found', `${this.what} not found`);
    return id;
  }
}
