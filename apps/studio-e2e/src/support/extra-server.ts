/**
 * A server of its own for tests that need another configuration than the shared one Playwright's
 * webServer starts (no admin account yet, a fake LLM as the default model): ./test-server.mjs on a
 * free port, ready once /health answers, stopped with SIGTERM (the launcher then removes its DATA_DIR
 * and database).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { serverEnv, TEST_SERVER, workspaceRoot } from './server-env';

export interface ExtraServer {
  url: string;
  stop(): Promise<void>;
}

const START_LIMIT_MS = 90_000;
const STOP_LIMIT_MS = 30_000;

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

export async function startExtraServer(overrides: Record<string, string>): Promise<ExtraServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [TEST_SERVER], {
    cwd: workspaceRoot,
    env: { ...process.env, ...serverEnv(port, overrides) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => (log += String(d)));
  child.stderr.on('data', (d) => (log += String(d)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_LIMIT_MS);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + START_LIMIT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the test server exited before it was ready:\n${log}`);
    const ok = await fetch(url + '/health').then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the test server was not ready within ${START_LIMIT_MS / 1000} s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
