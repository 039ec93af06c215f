/** Ids are Postgres `integer`s: anything else cannot name a row (and must not reach a query). */
export const MAX_DB_ID = 2_147_483_647;

export const isDbId = (id: unknown): id is number => typeof id === 'number' && Number.isSafeInteger(id) && id >= 1 && id <= MAX_DB_ID;
