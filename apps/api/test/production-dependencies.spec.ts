/**
 * The server runs on the production dependencies alone (the Dockerfile's runtime stage installs
 * `npm ci --omit=dev`): every package the server's code imports at run time must be in package.json's
 * `dependencies`, and every dependency must be used by the server (imported, or a peer the imports load).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';

/** the repository root, wherever this file runs from (source or compiled output) */
function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'nx.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('nx.json not found above ' + __dirname);
    dir = up;
  }
  return dir;
}

const root = repoRoot();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

/** Dependencies the server needs without naming them in an import: loaded by the packages it imports. */
const LOADED_BY_OTHERS: Record<string, string> = {
  '@nestjs/platform-express': 'the HTTP adapter NestFactory.create loads',
  pg: 'the TypeORM postgres driver',
  pino: 'a peer of nestjs-pino',
  'pino-http': 'a peer of nestjs-pino',
  rxjs: 'a peer of @nestjs/common and @nestjs/core',
};

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.ts$/.test(name) && !/\.(spec|d)\.ts$/.test(name)) out.push(p);
  }
  return out;
}

/** packages imported for their values (not `import type`) by the server's code and the libs it runs */
function runtimeImports(): Map<string, string> {
  const found = new Map<string, string>();
  const files = [...sources(join(root, 'apps/api/src')), ...sources(join(root, 'libs/workflow-graph/src'))];
  const statement = /^\s*(?:import|export)\s+(?!type\s)(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
  // loaded on demand (e.g. graphile-worker, in cluster mode only): `await import('…')`
  const dynamic = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of [...text.matchAll(statement), ...text.matchAll(dynamic)]) {
      const spec = m[1];
      if (spec.startsWith('.') || spec.startsWith('node:') || builtinModules.includes(spec)) continue;
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
      if (name.startsWith('@service/')) continue; // the workspace's own libs
      if (!found.has(name)) found.set(name, file.slice(root.length + 1));
    }
  }
  return found;
}

describe('production dependencies', () => {
  const imports = runtimeImports();

  test('finds the server imports (the scan itself works)', () => {
    for (const name of ['@nestjs/core', 'typeorm', 'argon2', 'reflect-metadata', 'express'])
      expect(imports.has(name)).toBeTruthy();
  });

  test('every package the server imports at run time is a production dependency', () => {
    const missing = [...imports]
      .filter(([name]) => !(name in pkg.dependencies))
      .map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
  });

  test('every production dependency is used by the server', () => {
    const unused = Object.keys(pkg.dependencies).filter((name) => !imports.has(name) && !(name in LOADED_BY_OTHERS));
    expect(unused).toEqual([]);
  });
});
