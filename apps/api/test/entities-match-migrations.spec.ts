/**
 * The entities and the migrations describe the same schema: on a fresh database after every
 * migration has run (as at boot), TypeORM's schema builder has nothing to change. A column added to an
 * entity without a migration (or a migration that differs from its entity) fails here, listing the SQL
 * a generated migration would contain.
 */
import { DataSource } from 'typeorm';
import { startApp, type TestApp } from './support/app';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

test('after the migrations, the entities need no schema change', async () => {
  const ds = t.created.app.get(DataSource);
  expect(await ds.showMigrations()).toEqual(false);
  const pending = await ds.driver.createSchemaBuilder().log();
  const sql = pending.upQueries.map((q) => q.query);
  // a difference means an entity changed without a migration: add one (npx typeorm migration:generate)
  expect(sql).toEqual([]);
});
