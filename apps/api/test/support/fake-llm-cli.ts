/**
 * Runs a FakeLlm as a process, for benchmarks and manual runs (`npm run fake-llm`).
 *
 *   PORT (4010), HOST (127.0.0.1)
 *   FAKE_TOKENS            every answer streams this many word tokens (default: the text "ok")
 *   FAKE_TEXT              every answer is this text (when FAKE_TOKENS is not set)
 *   FAKE_TTFT_MS           delay before the first token
 *   FAKE_TOKEN_INTERVAL_MS delay between tokens
 *
 * Point a model at it with provider `custom` and api_base = the OpenAI base it prints, or provider
 * `vendor_b` and api_base = the Anthropic base.
 */
import { FakeLlm, FakeTurn } from './fake-llm';

function num(name: string): number | undefined {
  const v = process.env[name];
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${v}"`);
  return n;
}

async function main(): Promise<void> {
  const port = num('PORT') ?? 4010;
  const host = process.env.HOST || '127.0.0.1';
  const tokens = num('FAKE_TOKENS');
  const defaultTurn: FakeTurn = tokens ? { tokens } : { text: process.env.FAKE_TEXT || 'ok' };
  const ttftMs = num('FAKE_TTFT_MS');
  const tokenIntervalMs = num('FAKE_TOKEN_INTERVAL_MS');
  if (ttftMs !== undefined) defaultTurn.ttftMs = ttftMs;
  if (tokenIntervalMs !== undefined) defaultTurn.tokenIntervalMs = tokenIntervalMs;

  const fake = await FakeLlm.start({ port, host, defaultTurn });
  console.log(`fake LLM listening on ${fake.url}`);
  console.log(`  OpenAI-compatible base: ${fake.openaiBase}`);
  console.log(`  Anthropic base:         ${fake.anthropicBase}`);
  console.log(`  default turn:           ${JSON.stringify(defaultTurn)}`);

  const stop = () => {
    fake.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
