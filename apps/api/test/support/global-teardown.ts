/** jest globalTeardown of the API integration suite: stops the server global-setup.ts started. */
import { rmSync } from 'node:fs';
import { EMBEDDED_KEY, type EmbeddedForTests } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as Record<symbol, EmbeddedForTests | undefined>;
  const embedded = g[EMBEDDED_KEY];
  if (!embedded) return;
  g[EMBEDDED_KEY] = undefined;
  delete process.env.TEST_EMBEDDED_PG_URL;
  await embedded.server.stop();
  rmSync(embedded.dir, { recursive: true, force: true });
}
