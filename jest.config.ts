// `npx jest` at the root runs every project's unit tests (the API integration suite is its own
// configuration, apps/api/jest.integration.config.ts, run by `nx run api:test-integration`).
import { getJestProjectsAsync } from '@nx/jest';

export default async () => ({
  projects: await getJestProjectsAsync(),
});
