/** Shared by the record API specs (models*.spec.ts, agents*.spec.ts): status assertions and an app with two users. */
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { ADMIN, startApp, type TestApp } from './app';
import { Client, newUser, type Res } from './http';

export const fields = (r: Res) => (r.body?.errors ?? []).map((e: { field: string }) => e.field);
export function expectStatus(r: Res, status: number, what = '') {
  assert.equal(r.status, status, `${what} expected ${status}, got ${r.status}: ${r.text.slice(0, 400)}`);
  if (status >= 400) assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
}
export function expect400(r: Res, field: string, what = '') {
  expectStatus(r, 400, what);
  assert.ok(fields(r).includes(field), `${what}: expected an error on ${field}, got ${JSON.stringify(r.body.errors)}`);
}

/** Starts the app; `a` is the seeded admin, `b` a new user called `otherName`. */
export async function startWithTwoUsers(
  otherName: string,
): Promise<{ t: TestApp; ds: DataSource; a: Client; b: Client }> {
  const t = await startApp();
  const ds = t.created.app.get(DataSource);
  const a = new Client(t.url);
  await a.login(ADMIN.username, ADMIN.password);
  const b = await newUser(t.url, a, otherName);
  return { t, ds, a, b };
}
