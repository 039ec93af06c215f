/** Every migration, in order. Hand-checked SQL for Postgres; the same list runs on PGlite and on a server. */
import { Auth1732300000000 } from './1732300000000-auth';

export const MIGRATIONS = [Auth1732300000000];
