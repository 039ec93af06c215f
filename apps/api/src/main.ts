import 'reflect-metadata';
import { createApp } from './platform/create-app';
import { EmbeddedPostgresError } from './platform/database/embedded-postgres';

async function main() {
  const { app, config } = await createApp();
  if (process.argv.includes('--migrate-only')) {
    await app.close();
    return;
  }
  await app.listen(config.port, config.host);
  const url = `http://localhost:${config.port}`;
  // One human line on stdout besides the JSON logs: where to go next.
  process.stdout.write(`\nAgentic Workflow Service is up: ${url}/studio  (API docs ${url}/docs, health ${url}/health)\n\n`);
}

main().catch((err) => {
  // the embedded database's errors are one line saying what to do (docs/OPERATIONS.md)
  const text = err instanceof EmbeddedPostgresError ? err.message : err instanceof Error ? err.stack : String(err);
  process.stderr.write(`fatal: ${text}\n`);
  process.exit(1);
});
