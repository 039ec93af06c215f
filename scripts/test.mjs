// `npm test`: install what is missing, build, then run every suite through its Nx target and print
// `N passed, N failed` (summed over the suites; exit status 1 when anything failed).
//   unit  — `nx run-many -t test`: jest (@swc/jest) on the *.spec.ts beside the code in libs/*,
//           apps/api/src and apps/studio/src (pure logic). Cached by Nx: unchanged projects replay.
//   api   — `nx run api:test-integration`: jest on apps/api/test/*.spec.ts, the real app over HTTP on
//           a real database — ONE embedded Postgres server for the run (jest globalSetup), a database
//           per test file; `api:test-integration:postgres` when TEST_DATABASE=postgres.
//   e2e   — `nx run studio-e2e:e2e`: @playwright/test driving Debian's Chromium against the real
//           server; `scripts/ensure-browser.mjs` runs first and stops the run if there is no Chromium.
// Environment:
//   TEST_SUITES=unit,api,e2e  the suites to run (default all three, in that order)
//   TEST_FILTER=auth          only test files whose path matches (jest --testPathPatterns; Playwright's
//                             file filter)
//   SKIP_BUILD=1              do not build first (and do not rebuild the API before its suite)
//   TEST_DATABASE=postgres    the api/e2e suites use the Postgres server at TEST_PG_URL
//                             (default postgres://postgres@127.0.0.1:5432/postgres), not an embedded one
// Counts come from jest's --json result files (tmp/jest/*.json, restored by Nx on a cache hit) and
// Playwright's JSON report (stats.expected + stats.flaky passed, stats.unexpected failed).
import { execSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const SUITES = ['unit', 'api', 'e2e'];
const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' };
const wanted = (process.env.TEST_SUITES || SUITES.join(','))
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = wanted.filter((s) => !SUITES.includes(s));
if (unknown.length) {
  console.error(`TEST_SUITES: unknown suite(s) ${unknown.join(', ')} (known: ${SUITES.join(', ')})`);
  process.exit(2);
}
const filter = process.env.TEST_FILTER || '';
const postgres = process.env.TEST_DATABASE === 'postgres';
const skipBuild = !!process.env.SKIP_BUILD;

execSync('node scripts/ensure-install.mjs', { stdio: 'inherit' });
if (wanted.includes('e2e')) {
  // before anything runs: a missing browser stops the run with one line saying what to do
  const r = spawnSync(process.execPath, ['scripts/ensure-browser.mjs'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(1);
}
const require = createRequire(import.meta.url);
const nxPackage = require.resolve('nx/package.json', { paths: [process.cwd()] });
const nxBin = join(dirname(nxPackage), require(nxPackage).bin.nx);
/** `--outputStyle` is nx's: it goes before a `--` that forwards the rest to the target's command. */
const withStyle = (args) => {
  const i = args.indexOf('--');
  return i < 0 ? [...args, '--outputStyle=static'] : [...args.slice(0, i), '--outputStyle=static', ...args.slice(i)];
};
const nx = (args, extraEnv = {}) =>
  spawnSync(process.execPath, [nxBin, ...withStyle(args)], {
    stdio: 'inherit',
    env: { ...env, ...extraEnv },
  });
if (!skipBuild) {
  const r = nx(['run-many', '-t', 'build', 'build-support']);
  if (r.status !== 0) {
    console.log('\nbuild failed\n0 passed, 1 failed');
    process.exit(1);
  }
}

const resultsDir = 'tmp/jest';
mkdirSync(resultsDir, { recursive: true });
const readJson = (file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
};
/** passed/failed of one jest --json result file; a file that failed to load counts as one failure. */
function jestCounts(file) {
  const r = readJson(file);
  if (!r) return null;
  return {
    pass: r.numPassedTests,
    fail: r.numFailedTests + r.numRuntimeErrorTestSuites,
    skip: r.numPendingTests + r.numTodoTests,
  };
}
const jestFilterArgs = filter ? [`--testPathPatterns=${filter}`, '--passWithNoTests'] : [];

function projectsWithTarget(target) {
  const r = spawnSync(process.execPath, [nxBin, 'show', 'projects', '--with-target', target, '--json'], {
    env,
    encoding: 'utf8',
  });
  return r.status === 0 ? JSON.parse(r.stdout) : [];
}

const suites = {
  unit() {
    const projects = projectsWithTarget('test');
    for (const p of projects) rmSync(join(resultsDir, `${p}.json`), { force: true });
    const r = nx(['run-many', '-t', 'test', ...jestFilterArgs]);
    const total = { pass: 0, fail: 0, skip: 0 };
    for (const p of projects) {
      const c = jestCounts(join(resultsDir, `${p}.json`)) ?? { pass: 0, fail: 1, skip: 0 };
      total.pass += c.pass;
      total.fail += c.fail;
      total.skip += c.skip;
    }
    if (r.status !== 0 && total.fail === 0) total.fail = 1;
    return total;
  },
  api() {
    const out = join(resultsDir, 'api-integration.json');
    rmSync(out, { force: true });
    const target = `api:test-integration${postgres ? ':postgres' : ''}`;
    const r = nx([
      'run',
      target,
      ...(skipBuild ? ['--excludeTaskDependencies'] : []),
      '--',
      '--json',
      `--outputFile=${out}`,
      ...jestFilterArgs,
    ]);
    const c = jestCounts(out) ?? { pass: 0, fail: 1, skip: 0 };
    if (r.status !== 0 && c.fail === 0) c.fail = 1;
    return c;
  },
  e2e() {
    if (!projectsWithTarget('e2e').includes('studio-e2e')) {
      console.log('e2e: skipped — this checkout has no studio-e2e:e2e target');
      return null;
    }
    const out = join(process.cwd(), 'tmp/playwright/results.json');
    rmSync(out, { force: true });
    const r = nx(
      ['run', 'studio-e2e:e2e', ...(skipBuild ? ['--excludeTaskDependencies'] : []), ...(filter ? ['--', filter] : [])],
      {
        PW_JSON_OUTPUT: out,
      },
    );
    const stats = readJson(out)?.stats;
    const c = stats
      ? { pass: stats.expected + stats.flaky, fail: stats.unexpected, skip: stats.skipped }
      : { pass: 0, fail: 1, skip: 0 };
    if (r.status !== 0 && c.fail === 0) c.fail = 1;
    return c;
  },
};

const db = postgres ? 'postgres' : 'embedded';
let pass = 0;
let fail = 0;
let skip = 0;
const lines = [];
for (const name of wanted) {
  console.log(
    `\n=== ${name} tests${name === 'unit' ? '' : ` (database: ${db})`}${filter ? ` matching ${filter}` : ''} ===`,
  );
  const c = suites[name]();
  if (!c) continue;
  const line = `--- ${name}: ${c.pass} passed, ${c.fail} failed${c.skip ? `, ${c.skip} skipped` : ''}`;
  console.log(line);
  lines.push(line);
  pass += c.pass;
  fail += c.fail;
  skip += c.skip;
}
if (lines.length > 1) console.log(`\n${lines.join('\n')}`);
console.log(`\n${pass} passed, ${fail} failed${skip ? `, ${skip} skipped` : ''}`);
process.exit(fail ? 1 : 0);
