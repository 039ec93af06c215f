/**
 * GET /metrics (docs/OPERATIONS.md, "Observability"): who may scrape it (an admin's session or
 * personal access token, or the METRICS_TOKEN bearer; anonymous 401, other users 403), that it parses
 * as the Prometheus text format, and that its counters and histograms move with turns.
 */
import { ADMIN, startApp, type TestApp } from './support/app';
import { bind, setupPack } from './support/chat-pack';
import { FakeLlm } from './support/fake-llm';
import { Client, newUser } from './support/http';
import { parsePrometheusText } from './support/prometheus-text';
import { readStream } from './support/sse';

const METRICS_TOKEN = 'scrape-token-for-tests-0123456789';

describe('/metrics', () => {
  let t: TestApp;
  let fake: FakeLlm;
  let admin: Client;
  let scraper: Client;

  beforeAll(async () => {
    fake = await FakeLlm.start();
    t = await startApp({ config: { metricsToken: METRICS_TOKEN } });
    admin = new Client(t.url);
    await admin.login(ADMIN.username, ADMIN.password);
    scraper = new Client(t.url);
    scraper.bearer = METRICS_TOKEN;
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const scrape = async (c: Client = scraper) => {
    const r = await c.get('/metrics');
    expect(r.status).toBe(200);
    // the text format 0.0.4 (Express puts the charset first; Prometheus reads the parameters in any order)
    const type = r.headers.get('content-type') ?? '';
    expect(type).toMatch(/^text\/plain;/);
    expect(type).toContain('version=0.0.4');
    return parsePrometheusText(r.text);
  };

  test('anonymous → 401, a user who is not an admin → 403, a wrong bearer → 401, all problem+json', async () => {
    const anonymous = await new Client(t.url).get('/metrics');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const bob = await newUser(t.url, admin, 'bob');
    const forbidden = await bob.get('/metrics');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('forbidden');
    const wrong = new Client(t.url);
    wrong.bearer = METRICS_TOKEN + 'x';
    expect((await wrong.get('/metrics')).status).toBe(401);
    // the scraper's token opens /metrics only: elsewhere it is no one's token
    expect((await scraper.get('/auth/me')).status).toBe(401);
    expect((await scraper.get('/studio/api/models')).status).toBe(401);
  });

  test("an admin's session, an admin's personal access token and METRICS_TOKEN may scrape", async () => {
    await scrape(admin);
    const token = await admin.post('/auth/tokens', { name: 'prometheus' });
    expect(token.status).toBe(201);
    const pat = new Client(t.url);
    pat.bearer = token.body.token;
    await scrape(pat);
    const m = await scrape(scraper);
    expect(m.types.get('agentic_turn_duration_seconds')).toBe('histogram');
    expect(m.types.get('agentic_turn_time_to_first_token_seconds')).toBe('histogram');
    expect(m.types.get('agentic_turns_total')).toBe('counter');
    expect(m.types.get('agentic_model_tokens_total')).toBe('counter');
    expect(m.types.get('agentic_open_streams')).toBe('gauge');
    expect(m.types.get('process_cpu_seconds_total')).toBe('counter');
    // the database pool: 10 connections at most, at least one opened by now
    expect(m.value('agentic_db_pool_max')).toBe(10);
    expect(
      m.value('agentic_db_pool_connections', { state: 'idle' }) +
        m.value('agentic_db_pool_connections', { state: 'busy' }),
    ).toBeGreaterThan(0);
  });

  test('turns move the counters and histograms: outcomes, tokens by model, time to first token, open streams', async () => {
    const { packId } = await setupPack(admin, fake);
    await bind(admin, 'metered', packId);
    const before = await scrape();

    fake.enqueue({ tool_calls: [{ name: 'list_files', arguments: {} }] }, { text: 'Here is the plan.' });
    const ok = await admin.post('/agent/chat', { project_slug: 'metered', message: 'Plan it' });
    expect(ok.status).toBe(200);
    fake.enqueue({ status: 400 });
    const failed = await admin.post('/agent/chat', { project_slug: 'metered', message: 'Again' });
    expect(failed.status).toBeGreaterThanOrEqual(400);

    const after = await scrape();
    const delta = (name: string, labels?: Record<string, string>) =>
      after.value(name, labels) - before.value(name, labels);
    expect(delta('agentic_turns_total', { outcome: 'done' })).toBe(1);
    expect(delta('agentic_turns_total', { outcome: 'error' })).toBe(1);
    expect(delta('agentic_turn_duration_seconds_count', { outcome: 'done' })).toBe(1);
    expect(delta('agentic_turn_duration_seconds_count', { outcome: 'error' })).toBe(1);
    expect(delta('agentic_turn_time_to_first_token_seconds_count')).toBe(1);
    const model = { provider: 'custom', model: 'fake-1' };
    expect(delta('agentic_model_tokens_total', { ...model, type: 'input' })).toBeGreaterThan(0);
    expect(delta('agentic_model_tokens_total', { ...model, type: 'output' })).toBeGreaterThan(0);
    expect(delta('agentic_model_calls_total', { ...model, result: 'ok' })).toBe(2);
    expect(delta('agentic_model_calls_total', { ...model, result: 'error' })).toBe(1);
    expect(after.value('agentic_turns_in_progress')).toBe(0);

    // an open stream shows while it is open
    fake.enqueue({ text: 'slow words here', tokenIntervalMs: 300 });
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => (opened = resolve));
    const reading = readStream(`${t.url}/agent/stream?project_slug=metered&message=Go`, {
      headers: { cookie: admin.cookie! },
      onEvent: (e) => {
        if (e.event === 'content') opened();
      },
    });
    await isOpen;
    expect((await scrape()).value('agentic_open_streams')).toBe(1);
    expect((await reading).events.at(-1)?.event).toBe('close');
    // released when the response has closed
    for (let tries = 0; (await scrape()).value('agentic_open_streams') !== 0; tries++) {
      expect(tries).toBeLessThan(100);
      await new Promise((r) => setTimeout(r, 50));
    }
  });
});
