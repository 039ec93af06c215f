/**
 * The entities and the migrations describe the same schema: on a fresh database after every
 * migration has run (as at boot), TypeORM's schema builder has nothing to change. A column added to an
 * entity without a migration (or a migration that differs from its entity) fails here, listing the SQL
 * a generated migration would contain.
 */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { startApp, type TestApp } from './support/app';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

test('after the migrations, the entities need no schema change', async () => {
  const ds = t.created.app.get(DataSource);
  assert.deepEqual(await ds.showMigrations(), false, 'every migration has run');
  const pending = await ds.driver.createSchemaBuilder().log();
  const sql = pending.upQueries.map((q) => q.query);
  assert.deepEqual(
    sql,
    [],
    'the entities differ from the migrations: add a migration (npx typeorm migration:generate) and commit it',
  );
});
