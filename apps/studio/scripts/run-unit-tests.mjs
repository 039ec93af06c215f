// Compiles the studio's pure modules and their *.spec.ts files with tsc (CommonJS) and runs them
// with `node --test`. The specs import nothing from React, so no DOM or bundler is needed.
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const studio = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(studio, '../..');
const out = join(studio, '.spec-out');
rmSync(out, { recursive: true, force: true });
execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(studio, 'tsconfig.spec.json')], {
  stdio: 'inherit',
});

const specs = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.spec.js')) specs.push(p);
  }
};
walk(out);
execFileSync(process.execPath, ['--test', '--test-reporter=spec', ...specs], { stdio: 'inherit' });
