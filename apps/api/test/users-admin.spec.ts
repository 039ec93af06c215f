/**
 * Admins change users (docs/API.md "Auth"): `PATCH /studio/api/users/{id}` sets a new password — the
 * user's sessions and access tokens end — or grants/takes the admin role; an admin cannot take their
 * own; anyone else is 403; bad input is 400, an unknown user 404.
 */
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client, newUser } from './support/http';

let t: TestApp;
let admin: Client;
beforeAll(async () => {
  t = await startApp();
  admin = new Client(t.url);
  await admin.login(ADMIN.username, ADMIN.password);
});
afterAll(() => t.close());

const idOf = async (username: string): Promise<number> =>
  (await admin.get('/studio/api/users')).body.find((u: { username: string }) => u.username === username).id;

test('a password reset ends the user’s sessions and tokens; the new password works', async () => {
  const kim = await newUser(t.url, admin, 'kim');
  const token = (await kim.post('/auth/tokens', { name: 'ci' })).body.token;
  const bearer = new Client(t.url);
  const viaToken = () => bearer.get('/auth/me', { authorization: `Bearer ${token}` });
  expect((await viaToken()).status).toBe(200);
  const id = await idOf('kim');

  const r = await admin.patch(`/studio/api/users/${id}`, { password: 'a-new-password-1' });
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ id, username: 'kim', is_admin: false, created_at: expect.any(String) });
  expect(JSON.stringify(r.body)).not.toContain('password');
  expect((await kim.get('/auth/me')).status).toBe(401);
  expect((await viaToken()).status).toBe(401);
  const again = new Client(t.url);
  expect((await again.post('/auth/login', { username: 'kim', password: 'password-123' })).status).toBe(401);
  expect((await again.post('/auth/login', { username: 'kim', password: 'a-new-password-1' })).status).toBe(200);
});

test('the admin role can be granted and taken, never by an admin from themselves', async () => {
  const lee = await newUser(t.url, admin, 'lee');
  const id = await idOf('lee');
  expect((await lee.get('/studio/api/users')).status).toBe(403);
  expect((await admin.patch(`/studio/api/users/${id}`, { is_admin: true })).body.is_admin).toBe(true);
  expect((await lee.get('/studio/api/users')).status).toBe(200);
  // the role change needs no new sign-in, and a role change alone keeps the session
  const adminId = await idOf(ADMIN.username);
  const self = await lee.patch(`/studio/api/users/${id}`, { is_admin: false });
  expect(self.status).toBe(409);
  expect(self.body.detail).toBe('You cannot take away your own administrator role.');
  expect((await lee.patch(`/studio/api/users/${adminId}`, { is_admin: false })).status).toBe(200);
  expect((await admin.get('/studio/api/users')).status).toBe(403);
  expect((await lee.patch(`/studio/api/users/${adminId}`, { is_admin: true })).status).toBe(200);
  expect((await admin.get('/studio/api/users')).status).toBe(200);
});

test('bad input is 400, an unknown user 404, non-admins 403', async () => {
  const max = await newUser(t.url, admin, 'max');
  const id = await idOf('max');
  expect((await admin.patch(`/studio/api/users/${id}`, { password: 'short' })).status).toBe(400);
  expect((await admin.patch(`/studio/api/users/${id}`, { is_admin: 'yes' })).status).toBe(400);
  expect((await admin.patch(`/studio/api/users/${id}`, { username: 'other' })).status).toBe(400);
  expect((await admin.patch(`/studio/api/users/${id}`, { password: 'x'.repeat(257) })).status).toBe(400);
  expect((await admin.patch('/studio/api/users/999999', { is_admin: true })).status).toBe(404);
  expect((await admin.patch('/studio/api/users/99999999999', { is_admin: true })).status).toBe(404);
  expect((await max.patch(`/studio/api/users/${id}`, { is_admin: true })).status).toBe(403);
  expect((await new Client(t.url).patch(`/studio/api/users/${id}`, { is_admin: true })).status).toBe(401);
});
