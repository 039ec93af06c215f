/**
 * Import boundaries (STYLE §11): libs import neither Nest nor React; the studio never imports the API;
 * the runtime module imports no HTTP layer and no database code.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '../../..');

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const imports = (file: string) => [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);

function violations(dir: string, forbidden: RegExp, skip: (f: string) => boolean = () => false) {
  return sources(join(root, dir))
    .filter((f) => !skip(f))
    .flatMap((f) => imports(f).filter((i) => forbidden.test(i)).map((i) => `${relative(root, f)} imports ${i}`));
}

test('libs import neither Nest nor React nor the apps', () => {
  assert.deepEqual(violations('libs', /^(@nestjs\/|react|react-dom|@xyflow\/)|apps\//), []);
});

test('the studio never imports the API', () => {
  assert.deepEqual(violations('apps/studio/src', /apps\/api|^@nestjs\/|^typeorm/), []);
});

test('the runtime imports no HTTP layer and no database code', () => {
  const spec = (f: string) => f.endsWith('.spec.ts') || f.includes('test-support');
  assert.deepEqual(violations('apps/api/src/modules/runtime', /^express|^typeorm|^@nestjs\/typeorm|\/chat\/|\.controller/, spec), []);
});
