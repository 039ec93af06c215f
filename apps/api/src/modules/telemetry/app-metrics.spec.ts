import { AppMetrics, MAX_MODEL_SERIES } from './app-metrics';

describe('AppMetrics', () => {
  test(`model names from user records make at most ${MAX_MODEL_SERIES} series; the rest count as "other"`, async () => {
    const m = new AppMetrics();
    for (let i = 0; i < MAX_MODEL_SERIES + 5; i++) m.modelCall('custom', `model-${i}`, { input: 1, output: 2 }, true);
    m.modelCall('custom', 'model-0', { input: 1, output: 0 }, true); // a known model keeps its series
    const text = await m.render();
    expect(text).toContain('agentic_model_tokens_total{provider="custom",model="model-0",type="input"} 2');
    expect(text).toContain(`agentic_model_tokens_total{provider="custom",model="other",type="output"} 10`);
    expect(text).not.toContain(`model-${MAX_MODEL_SERIES}"`);
  });

  test('addGauge: a level read at scrape time, one number or one per label set', async () => {
    const m = new AppMetrics();
    let depth = 3;
    m.addGauge('queue_depth', 'Jobs waiting.', () => depth);
    m.addGauge('workers', 'Workers by state.', () => [{ labels: { state: 'busy' }, value: 2 }], ['state']);
    expect(await m.render()).toContain('agentic_queue_depth 3');
    depth = 7;
    const text = await m.render();
    expect(text).toContain('agentic_queue_depth 7');
    expect(text).toContain('agentic_workers{state="busy"} 2');
    expect(m.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  test('a turn ends once, however often it is told', async () => {
    const m = new AppMetrics();
    const t = m.turnStarted();
    t.firstToken();
    t.firstToken();
    t.end('cancelled');
    t.end('done');
    const text = await m.render();
    expect(text).toContain('agentic_turns_total{outcome="cancelled"} 1');
    expect(text).not.toContain('agentic_turns_total{outcome="done"}');
    expect(text).toContain('agentic_turn_time_to_first_token_seconds_count 1');
    expect(text).toContain('agentic_turns_in_progress 0');
  });
});
