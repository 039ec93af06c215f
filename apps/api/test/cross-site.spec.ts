/**
 * Cross-site defences beyond the Origin check of state changes (docs/API.md "The stream", "Auth"):
 * a GET that starts a turn is refused from another site, whatever cookie the browser attaches.
 */
import assert from 'node:assert/strict';
import { ADMIN, startApp, type TestApp } from './support/app';
import { Client } from './support/http';
import { names, readStream } from './support/sse';

const TRUSTED = 'https://studio.example.com';

describe('cross-site turn through GET', () => {
  let t: TestApp;
  let a: Client;

  beforeAll(async () => {
    t = await startApp({ config: { allowedOrigins: [TRUSTED] } });
    a = new Client(t.url);
    await a.login(ADMIN.username, ADMIN.password);
    const pdlc = (await a.get('/agent/workflows')).body.workflows.find((w: { slug: string }) => w.slug === 'pdlc');
    for (const slug of ['victim', 'sibling', 'legacy']) {
      const r = await a.put(`/agent/workflows/${slug}`, { domain: 'pdlc', stage: 'discover', pack_id: pdlc.pack_id });
      assert.equal(r.status, 200, r.text);
    }
  });
  afterAll(() => t.close());

  const start = (slug: string, headers: Record<string, string>) =>
    readStream(`${t.url}/agent/stream?project_slug=${slug}&message=${encodeURIComponent('write it')}&advance=1`, {
      headers: { cookie: a.cookie!, ...headers },
    });
  const messages = async (slug: string) => (await a.get(`/agent/history/${slug}`)).body.messages.length;

  test('Sec-Fetch-Site: cross-site is 403 and runs nothing; same-origin, none and header-less clients run', async () => {
    const r = await start('victim', {
      'sec-fetch-site': 'cross-site',
      'sec-fetch-mode': 'navigate',
      referer: 'https://evil.example/',
    });
    assert.equal(r.status, 403, JSON.stringify(r.body));
    assert.equal(r.body.code, 'origin.cross_site');
    assert.equal(await messages('victim'), 0, 'no turn ran');
    assert.equal((await a.get('/agent/workflows/victim')).body.stage, 'discover');

    for (const headers of [{ 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'none' }, {}] as Array<
      Record<string, string>
    >) {
      const ok = await start('victim', headers);
      assert.equal(ok.status, 200, JSON.stringify(headers));
      assert.equal(names(ok.events).at(-1), 'close');
      // replaying a run starts nothing, so it stays readable from anywhere
      const replay = await readStream(`${t.url}/agent/stream`, {
        headers: { cookie: a.cookie!, 'sec-fetch-site': 'cross-site', 'last-event-id': ok.events[2].id },
      });
      assert.equal(replay.status, 200);
      assert.equal(replay.events[0].seq, ok.events[3].seq);
    }
  });

  test('Sec-Fetch-Site: same-site is refused unless it comes from an ALLOWED_ORIGINS origin', async () => {
    const sibling = await start('sibling', { 'sec-fetch-site': 'same-site', referer: 'https://blog.example.com/post' });
    assert.equal(sibling.status, 403, JSON.stringify(sibling.body));
    assert.equal(await messages('sibling'), 0);
    const trusted = await start('sibling', { 'sec-fetch-site': 'same-site', origin: TRUSTED });
    assert.equal(trusted.status, 200, JSON.stringify(trusted.body));
  });

  test('without Sec-Fetch-Site, a foreign Referer or Origin is refused', async () => {
    assert.equal((await start('legacy', { referer: 'https://evil.example/page' })).status, 403);
    assert.equal((await start('legacy', { origin: 'null' })).status, 403);
    assert.equal(await messages('legacy'), 0);
    assert.equal((await start('legacy', { referer: `${t.url}/studio/projects/legacy` })).status, 200);
  });
});
