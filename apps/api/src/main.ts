import 'reflect-metadata';
import { createApp } from './platform/create-app';

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
  process.stderr.write(`fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
