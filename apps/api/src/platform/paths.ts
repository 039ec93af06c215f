/**
 * Where the repository is, from this file: the server runs compiled (apps/api/dist/src/platform) and
 * the jest suites run the TypeScript source (apps/api/src/platform), one directory level apart.
 */
import { basename, join } from 'node:path';

const compiled = basename(join(__dirname, '../..')) === 'dist';

/** apps/api */
export const API_ROOT = compiled ? join(__dirname, '../../..') : join(__dirname, '../..');

/** The repository root (package.json, apps/studio/dist). */
export const REPO_ROOT = join(API_ROOT, '../..');
