// first: starts the OpenTelemetry SDK (when OTEL_EXPORTER_OTLP_ENDPOINT is set) before the modules it instruments load
import './platform/telemetry/start-tracing';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigError } from './platform/config/environment.schema';
import { createApp } from './platform/create-app';
import { EmbeddedPostgresError } from './platform/database/embedded-postgres';

async function main() {
  const { app, config } = await createApp();
  if (process.argv.includes('--migrate-only')) {
    await app.close();
    return;
  }
  // Shutdown has a deadline (docs/OPERATIONS.md, "Shutdown"): Nest's hooks stop live runs and close
  // the server; should anything still hang, the process exits when SHUTDOWN_DEADLINE_MS is up.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      setTimeout(() => {
        process.stderr.write(
          `${JSON.stringify({ level: 50, time: Date.now(), msg: `shutdown deadline (${config.shutdownDeadlineMs} ms) reached; exiting` })}\n`,
        );
        process.exit(1);
      }, config.shutdownDeadlineMs).unref();
    });
  }
  await app.listen(config.port, config.host);
  const url = `http://localhost:${config.port}`;
  // Where to go next: one human line in a terminal; a JSON log line like every other when stdout is
  // collected (a pipe, a file, a container), so log pipelines never meet a line that is not JSON.
  if (process.stdout.isTTY) {
    process.stdout.write(
      `\nAgentic Workflow Service is up: ${url}/studio  (API docs ${url}/docs, health ${url}/health)\n\n`,
    );
  } else {
    new Logger('Main').log({ studio: `${url}/studio`, docs: `${url}/docs`, health: `${url}/health` }, 'service is up');
  }
}

main().catch((err) => {
  // the embedded database's errors and a bad environment are one line saying what to do (docs/OPERATIONS.md)
  const oneLine = err instanceof EmbeddedPostgresError || err instanceof ConfigError;
  const text = oneLine ? err.message : err instanceof Error ? err.stack : String(err);
  process.stderr.write(`fatal: ${text}\n`);
  process.exit(1);
});
