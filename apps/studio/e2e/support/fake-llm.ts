/**
 * The repo's scripted fake OpenAI-compatible server (apps/api/test/support/fake-llm.ts, built to
 * apps/api/dist-support by `nx run api:build-support`) run as a child process, so browser tests can make turns slow enough to reload mid-turn.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const root = join(__dirname, '../../../..');

export interface FakeLlmProcess {
  openaiBase: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Every answer streams `tokens` words, one per `intervalMs` — or is `text`. */
export async function startFakeLlm(opts: { tokens: number; intervalMs: number } | { text: string }): Promise<FakeLlmProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, 'apps/api/dist-support/fake-llm-cli.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      ...('text' in opts ? { FAKE_TEXT: opts.text } : { FAKE_TOKENS: String(opts.tokens), FAKE_TOKEN_INTERVAL_MS: String(opts.intervalMs) }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const openaiBase = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fake LLM did not start:\n${out}`)), 30_000);
    child.stdout?.on('data', (d) => {
      out += String(d);
      const m = /OpenAI-compatible base:\s+(\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.stderr?.on('data', (d) => (out += String(d)));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`fake LLM exited (${code}):\n${out}`));
    });
  });
  return {
    openaiBase,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
