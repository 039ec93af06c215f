/**
 * The studio's static files over real HTTP on 127.0.0.1: compressed (brotli or gzip, as accepted),
 * hashed assets cached for a year, index.html revalidated; the API paths are left to the next handler
 * and never compressed here. A throwaway dist directory stands in for the Vite build.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import express from 'express';
import { studioPages } from './studio-pages';

function fetchRaw(
  url: string,
  encoding: string | null,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = get(url, { headers: encoding ? { 'accept-encoding': encoding } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

describe('studio pages: compression and caching', () => {
  let server: Server;
  let base: string;
  let dist: string;
  const script = 'export const answer = () => "the same line, again and again";\n'.repeat(2000);

  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'studio-dist-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'assets', 'index-DbsTH9JN.js'), script);
    writeFileSync(
      join(dist, 'index.html'),
      `<!doctype html><html><head><script type="module" src="/studio/assets/index-DbsTH9JN.js"></script></head><body>${'<div></div>'.repeat(300)}</body></html>`,
    );
    const app = express();
    app.use(studioPages(dist));
    app.get('/studio/api/ping', (_req, res) => res.json({ text: 'x'.repeat(5000) }));
    await new Promise<void>((resolve) => {
      server = app.listen(0, '127.0.0.1', () => resolve());
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dist, { recursive: true, force: true });
  });

  test('a hashed script is sent with brotli or gzip, and cached for a year as immutable', async () => {
    const br = await fetchRaw(`${base}/studio/assets/index-DbsTH9JN.js`, 'gzip, deflate, br');
    assert.equal(br.status, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(br.headers.vary), /accept-encoding/i);
    assert.ok(br.body.length < script.length / 10, `${br.body.length} bytes sent for ${script.length}`);
    assert.equal(brotliDecompressSync(br.body).toString(), script);

    const gz = await fetchRaw(`${base}/studio/assets/index-DbsTH9JN.js`, 'gzip');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gz.body).toString(), script);

    const plain = await fetchRaw(`${base}/studio/assets/index-DbsTH9JN.js`, null);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body.toString(), script);
  });

  test('index.html is compressed and revalidated on every load', async () => {
    const r = await fetchRaw(`${base}/studio/login`, 'gzip');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.equal(r.headers['cache-control'], 'no-cache');
    assert.match(gunzipSync(r.body).toString(), /index-DbsTH9JN\.js/);
  });

  test('API paths are left alone (not compressed here)', async () => {
    const r = await fetchRaw(`${base}/studio/api/ping`, 'gzip, br');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-encoding'], undefined);
  });
});
