// Makes sure the browser tests have a Chromium to drive: Debian's package, never a downloaded browser.
//   Chromium at CHROMIUM_PATH or /usr/bin/chromium → exit 0.
//   Otherwise, as root with apt-get → `apt-get install -y chromium` (quiet; the log's tail on failure).
//   Otherwise → ONE line saying how to install it (or how to skip the browser tests), exit 1.
// `npm test` runs this before any test when the e2e suite is wanted (scripts/test.mjs).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const executable = (p) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
if (executable(path)) process.exit(0);

const howTo = `Chromium not found at ${path}: install it with \`sudo apt-get install -y chromium\` (or set CHROMIUM_PATH), or skip the browser tests with \`TEST_SUITES=unit,api npm test\`.`;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
if (process.env.CHROMIUM_PATH || !isRoot || !hasApt) {
  console.error(howTo);
  process.exit(1);
}

console.log('› installing Chromium (apt-get install -y chromium)…');
const log = join(mkdtempSync(join(tmpdir(), 'ensure-browser-')), 'apt.log');
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
let out = '';
for (const args of [
  ['update', '-qq'],
  ['install', '-y', '-qq', 'chromium'],
]) {
  const r = spawnSync('apt-get', args, { env, encoding: 'utf8' });
  out += `$ apt-get ${args.join(' ')}\n${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}\n`;
  if (r.status !== 0) break;
}
writeFileSync(log, out);
if (executable(path)) process.exit(0);
console.error(readFileSync(log, 'utf8').trimEnd().split('\n').slice(-15).join('\n'));
console.error(`Chromium install failed (full log: ${log}). ${howTo}`);
process.exit(1);
