// `npm test`: install what is missing, build, then run every suite and print `N passed, N failed`.
//   unit     — *.spec.js compiled beside the code (libs, api src, studio pure logic)
//   api      — apps/api/test/*.spec.js: the real app over HTTP on a real database
//              (the embedded Postgres server by default, one for the whole run with a database per
//              test file; TEST_DATABASE=postgres uses the server at TEST_PG_URL instead)
//   e2e      — apps/studio/e2e/*.spec.js: Playwright driving Debian's Chromium against the real server
// TEST_SUITES=unit,api limits the run; TEST_FILTER=auth runs matching files only.
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' };
execSync('node scripts/ensure-install.mjs', { stdio: 'inherit' });
if (!process.env.SKIP_BUILD) {
  execSync('npx nx run-many -t build --outputStyle=static', { stdio: 'inherit', env });
}

function find(dir, pred, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) find(p, pred, out);
    else if (pred(p)) out.push(p);
  }
  return out;
}

const spec = (p) => p.endsWith('.spec.js');
const filter = process.env.TEST_FILTER;
const pick = (files) => (filter ? files.filter((f) => f.includes(filter)) : files).sort();
const suites = {
  unit: () =>
    pick([
      ...(existsSync('libs') ? readdirSync('libs') : []).flatMap((l) => find(join('libs', l, 'dist'), spec)),
      ...find('apps/api/dist/src', spec),
      ...find('apps/studio/.spec-out', spec),
    ]),
  api: () => pick(find('apps/api/dist/test', spec)),
  e2e: () => pick(find('apps/studio/dist-e2e', spec)),
};
const wanted = (process.env.TEST_SUITES || 'unit,api,e2e').split(',');
// The studio's pure-logic specs and the browser tests are compiled here (CommonJS for node:test);
// the studio bundle itself is built by Vite in the Nx build.
const tsc = (project) => execSync(`node_modules/.bin/tsc -p ${project}`, { stdio: 'inherit' });
if (wanted.includes('unit') && existsSync('apps/studio/tsconfig.spec.json')) tsc('apps/studio/tsconfig.spec.json');
if (wanted.includes('e2e') && existsSync('apps/studio/e2e/tsconfig.json')) tsc('apps/studio/e2e/tsconfig.json');
const db = process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'embedded';

// The default path is the tested path: the same embedded server the service runs (built above),
// started once here; each test file creates (and drops) its own database on it.
let embedded = null;
let embeddedDir = null;
if (db === 'embedded' && wanted.some((s) => s === 'api' || s === 'e2e')) {
  const { EmbeddedPostgres } = createRequire(import.meta.url)('../apps/api/dist/src/platform/database/embedded-postgres.js');
  embeddedDir = mkdtempSync(join(tmpdir(), 'aws-test-pg-'));
  embedded = new EmbeddedPostgres({ dir: join(embeddedDir, 'postgres') });
  env.TEST_EMBEDDED_PG_URL = await embedded.start();
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => stopEmbedded().finally(() => process.exit(130)));
}
async function stopEmbedded() {
  if (embedded) await embedded.stop();
  embedded = null;
  if (embeddedDir) rmSync(embeddedDir, { recursive: true, force: true });
  embeddedDir = null;
}

let pass = 0;
let fail = 0;
let skip = 0;
for (const name of wanted) {
  const files = suites[name]?.() ?? [];
  console.log(`\n=== ${name} tests (${files.length} files, database: ${db}) ===`);
  if (!files.length) continue;
  const out = join(mkdtempSync(join(tmpdir(), 'counts-')), 'counts.json');
  const r = spawnSync(
    process.execPath,
    [
      '--test',
      '--test-concurrency=1',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=./scripts/test-counter.mjs',
      `--test-reporter-destination=${out}`,
      ...files,
    ],
    { stdio: 'inherit', env: { ...env, TEST_SUITE: name } },
  );
  let counts = { pass: 0, fail: r.status === 0 ? 0 : 1, skip: 0 };
  try {
    counts = JSON.parse(readFileSync(out, 'utf8'));
    if (r.status !== 0 && counts.fail === 0) counts.fail = 1;
  } catch {
    /* runner crashed before writing counts */
  }
  console.log(`--- ${name}: ${counts.pass} passed, ${counts.fail} failed`);
  pass += counts.pass;
  fail += counts.fail;
  skip += counts.skip;
}
await stopEmbedded();
console.log(`\n${pass} passed, ${fail} failed${skip ? `, ${skip} skipped` : ''}`);
process.exit(fail ? 1 : 0);
