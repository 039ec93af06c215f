/**
 * A bad environment stops the production entry point before it touches a database or a port: exit 1
 * and one line on stderr naming the variable (README "Configuration").
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function boot(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aws-config-'));
  const child = spawn(process.execPath, [join(__dirname, '../dist/src/main.js')], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // a boot that does not stop would bind the port: give up after a deadline instead of waiting forever
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      rmSync(dataDir, { recursive: true, force: true });
      resolve({ code, stderr, stdout });
    }),
  );
}

for (const [name, value, message] of [
  ['PORT', 'abc', 'PORT must be a whole number (0 or more), got "abc"'],
  ['LOG_LEVEL', 'loud', 'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "loud"'],
  ['TURN_TIMEOUT_MS', 'ten', 'TURN_TIMEOUT_MS must be a whole number (0 or more), got "ten"'],
]) {
  test(`${name}=${value} stops the boot with one line naming it`, async () => {
    const r = await boot({ [name]: value });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`fatal: invalid environment: ${message}\n`);
    expect(r.stdout).toBe('');
  });
}
