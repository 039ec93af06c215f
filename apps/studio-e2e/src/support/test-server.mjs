// Starts the built production server (apps/api/dist/src/main.js) for the browser tests and cleans up
// after it: a fresh DATA_DIR in a temp dir, so the server embeds its own Postgres (the default path),
// or — with TEST_DATABASE=postgres — a fresh database on the machine's server (TEST_PG_URL, default
// postgres://postgres@127.0.0.1:5432/postgres) created here and dropped when the server has exited.
// Playwright's webServer runs this (it starts plugins before globalSetup, so the database cannot be
// made there); the fixtures in ./fixtures.ts run it for servers with another configuration.
// The server's other settings come from the environment (./server-env.ts). SIGTERM/SIGINT stop it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const { Client } = createRequire(import.meta.url)('pg');

const dataDir = mkdtempSync(join(tmpdir(), 'studio-e2e-'));
const adminUrl =
  process.env.TEST_DATABASE === 'postgres'
    ? process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres'
    : null;
const dbName = adminUrl ? `studio_e2e_${process.pid}_${randomBytes(3).toString('hex')}` : null;

async function admin(sql) {
  const c = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

async function cleanUp() {
  rmSync(dataDir, { recursive: true, force: true });
  if (dbName) await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
}

let databaseUrl = '';
if (dbName) {
  try {
    await admin(`CREATE DATABASE ${dbName}`);
  } catch (e) {
    console.error(`TEST_DATABASE=postgres: cannot create a database at ${adminUrl}: ${e.message}`);
    await cleanUp().catch(() => undefined);
    process.exit(1);
  }
  const u = new URL(adminUrl);
  u.pathname = '/' + dbName;
  databaseUrl = u.toString();
}

const server = spawn(process.execPath, [join(root, 'apps/api/dist/src/main.js')], {
  cwd: root,
  env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl },
  stdio: 'inherit',
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.kill('SIGTERM'));
server.once('exit', (code, signal) => {
  cleanUp().then(
    () => process.exit(code ?? (signal === 'SIGTERM' ? 0 : 1)),
    (e) => {
      console.error(`test server clean-up failed: ${e.message}`);
      process.exit(1);
    },
  );
});
