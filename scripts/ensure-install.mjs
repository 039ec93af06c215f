// Installs dependencies when node_modules is missing or older than package-lock.json.
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const stamp = 'node_modules/.package-lock.json';
const stale = !existsSync(stamp) || statSync('package-lock.json').mtimeMs > statSync(stamp).mtimeMs + 1000;
if (stale) {
  console.log('› installing dependencies (npm install)…');
  execSync('npm install --no-audit --no-fund', { stdio: 'inherit' });
}
