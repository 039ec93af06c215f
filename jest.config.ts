// `npx jest` at the root runs every project's unit tests. The API integration suite
// (apps/api/jest.integration.config.ts, `nx run api:test-integration`) needs a database and the built
// server, so it is left out here.
import { getJestProjectsAsync } from '@nx/jest';

export default async () => ({
  projects: (await getJestProjectsAsync()).filter((config) => !config.endsWith('jest.integration.config.ts')),
});
