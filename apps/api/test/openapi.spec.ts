/**
 * The contract check: /openapi.json generated from the code must equal the checked-in
 * libs/contracts/openapi.json (and its generated types), and must pass a real OpenAPI linter.
 * When this fails after an API change, run `npm run openapi` and commit the result.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp, type TestApp } from './support/app';
import { Client } from './support/http';

const root = join(__dirname, '../../..');

describe('OpenAPI contract', () => {
  let t: TestApp;
  let doc: Record<string, unknown>;
  const dir = mkdtempSync(join(tmpdir(), 'openapi-check-'));
  beforeAll(async () => {
    t = await startApp();
    doc = (await new Client(t.url).get('/openapi.json')).body;
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc, null, 2) + '\n');
  });
  afterAll(() => t.close());

  test('is OpenAPI 3.1 and matches the checked-in libs/contracts/openapi.json (run `npm run openapi`)', () => {
    assert.equal(doc.openapi, '3.1.0');
    const committed = JSON.parse(readFileSync(join(root, 'libs/contracts/openapi.json'), 'utf8'));
    assert.deepEqual(doc, committed);
  });

  test('passes the Redocly linter', () => {
    try {
      execFileSync(
        join(root, 'node_modules/.bin/redocly'),
        ['lint', join(dir, 'openapi.json'), '--config', join(root, 'redocly.yaml')],
        {
          stdio: 'pipe',
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      );
    } catch (e) {
      const err = e as { stdout?: Buffer; stderr?: Buffer };
      assert.fail(`redocly lint failed:\n${err.stdout?.toString() ?? ''}${err.stderr?.toString() ?? ''}`);
    }
  });

  test('the generated TypeScript types are current', () => {
    const out = join(dir, 'api.d.ts');
    execFileSync(
      process.execPath,
      [join(root, 'node_modules/openapi-typescript/bin/cli.js'), join(dir, 'openapi.json'), '-o', out],
      { stdio: 'pipe' },
    );
    assert.equal(readFileSync(out, 'utf8'), readFileSync(join(root, 'libs/contracts/src/api.d.ts'), 'utf8'));
  });
});
