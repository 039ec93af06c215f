/**
 * Runs the production entry point as a child process with debug logging and checks that no secret
 * (password, session cookie, bearer token, model API key) ever reaches a log line, and that request
 * logs are JSON with a request id — every line the service writes, boot included, is one JSON object.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDb } from './support/app';
import { Client } from './support/http';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });

test('no secret appears in the logs; every log line (boot too) is JSON; request lines carry a request id', async () => {
  const db = await createTestDb();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'aws-logs-'));
  const PASSWORD = 'Sup3r-Secret-Passw0rd';
  const API_KEY = 'sk-live-VERY-SECRET-KEY-0987654321';
  const child = spawn(process.execPath, [join(__dirname, '../dist/src/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: db.databaseUrl ?? '',
      ADMIN_USERNAME: 'root-admin',
      ADMIN_PASSWORD: PASSWORD,
      LOG_LEVEL: 'debug',
      APP_SECRET: 'x'.repeat(40),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stdout = '';
  child.stdout.on('data', (d) => {
    out += d;
    stdout += d;
  });
  child.stderr.on('data', (d) => (out += d));
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 300; i++) {
      try {
        if ((await fetch(base + '/health')).ok) break;
      } catch {
        /* starting */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const c = new Client(base);
    await c.post('/auth/login', { username: 'root-admin', password: 'wrong-' + PASSWORD });
    await c.login('root-admin', PASSWORD);
    const token = (await c.post('/auth/tokens', { name: 'ci' })).body.token as string;
    const t = new Client(base);
    t.bearer = token;
    await t.get('/auth/me');
    await t.post('/studio/api/models', { label: 'm', provider: 'vendor_a', model_id: 'x', api_key: API_KEY });
    await t.post('/studio/api/models', '{"bad json', {});
    await new Promise((r) => setTimeout(r, 300));
    const cookieValue = decodeURIComponent(c.cookie!.slice('sid='.length));
    for (const secret of [PASSWORD, API_KEY, token, cookieValue, cookieValue.split('.')[0].slice(2), 'x'.repeat(40)]) {
      assert.ok(!out.includes(secret), `a secret leaked into the logs: ${secret.slice(0, 6)}…`);
    }
    const lines = out.split('\n').filter((l) => l.startsWith('{'));
    const requests = lines.map((l) => JSON.parse(l)).filter((l) => l.req?.path === '/auth/login');
    assert.ok(requests.length >= 2);
    assert.ok(requests.every((l) => typeof l.req.id === 'string' && l.req.id.length > 0));
    // boot lines too (Nest's own, before the app's logger is attached, are buffered and replayed as JSON)
    const written = stdout.split('\n').filter((l) => l.trim());
    const notJson = written.filter((l) => {
      try {
        return typeof JSON.parse(l) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    expect(written.some((l) => l.includes('Nest application successfully started'))).toBe(true);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
    await db.drop();
  }
});
