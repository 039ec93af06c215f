// `npm run openapi`: writes libs/contracts/openapi.json from the running code (a throwaway embedded
// database) and regenerates libs/contracts/src/api.d.ts with openapi-typescript. CI fails when stale.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
export async function currentDocument() {
  const dataDir = mkdtempSync(join(tmpdir(), 'openapi-'));
  require('reflect-metadata');
  const { createApp } = require('../apps/api/dist/src/platform/create-app.js');
  const { app } = await createApp(
    { dataDir, databaseUrl: null, logLevel: 'silent', adminUsername: null },
    { logger: false },
  );
  try {
    await app.listen(0, '127.0.0.1');
    const port = app.getHttpServer().address().port;
    return await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json();
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function stringify(doc) {
  return JSON.stringify(doc, null, 2) + '\n';
}

export function generateTypes(jsonPath, outPath) {
  execFileSync(process.execPath, ['node_modules/openapi-typescript/bin/cli.js', jsonPath, '-o', outPath], {
    stdio: 'pipe',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const doc = await currentDocument();
  writeFileSync('libs/contracts/openapi.json', stringify(doc));
  generateTypes('libs/contracts/openapi.json', 'libs/contracts/src/api.d.ts');
  console.log(
    `wrote libs/contracts/openapi.json (${Object.keys(doc.paths).length} paths) and libs/contracts/src/api.d.ts`,
  );
}
