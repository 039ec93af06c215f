// Installs dependencies when node_modules is missing or older than package.json / package-lock.json.
//
// The committed lockfile is the source of truth, so the install is `npm ci` (exactly the locked tree):
// a fresh clone, a pulled lockfile, and CI (CI=true, always `npm ci`, so a lockfile out of step with
// package.json fails the run instead of being rewritten there). Only when package.json is newer than the
// lockfile — someone edited the dependencies by hand — is it `npm install`, which updates the lockfile
// that they then commit.
//
// `--include=dev` always: `npm start` and `npm test` build first (nx, tsc, vite are devDependencies), and
// npm would otherwise leave them out under NODE_ENV=production. The server itself needs only the
// production dependencies (the Dockerfile's runtime stage installs `npm ci --omit=dev`).
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const stamp = 'node_modules/.package-lock.json';
const mtime = (file) => statSync(file).mtimeMs;
const newer = (a, b) => mtime(a) > mtime(b) + 1000;
const stale = !existsSync(stamp) || newer('package-lock.json', stamp) || newer('package.json', stamp);
if (stale) {
  const edited = !process.env.CI && newer('package.json', 'package-lock.json');
  const command = edited ? 'npm install' : 'npm ci';
  console.log(
    `› installing dependencies (${command}${edited ? ': package.json is newer than package-lock.json' : ''})…`,
  );
  execSync(`${command} --include=dev --no-audit --no-fund`, { stdio: 'inherit' });
}
