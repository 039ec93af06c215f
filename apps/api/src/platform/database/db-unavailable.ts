/**
 * Recognises "the database is unavailable" among driver errors: refused or cut connections, the pool's
 * connection-acquire timeout, the client-side query timeout, the server's statement_timeout and its
 * shutdown / not-accepting-connections codes. Such errors answer 503 `database_unavailable` with
 * Retry-After (docs/OPERATIONS.md, "Database timeouts"), never 500.
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** SQLSTATE: 08 connection exception, 57014 query_canceled (statement_timeout), 57P01–57P03 shutdown / cannot connect now, 53300 too many connections */
const SQLSTATE = /^(08...|57014|57P0[1-3]|53300)$/;
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Connection is not established|Client has encountered a connection error|connect ECONNREFUSED|socket hang up|the database system is (starting up|shutting down)/i;

/** Seconds a client should wait before retrying a request the database could not serve. */
export const DATABASE_RETRY_AFTER_S = 5;

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const e = err as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
  if (typeof e.code === 'string' && (SOCKET_CODES.has(e.code) || SQLSTATE.test(e.code))) return true;
  if (typeof e.message === 'string' && MESSAGES.test(e.message)) return true;
  return isDatabaseUnavailable(e.driverError, depth + 1) || isDatabaseUnavailable(e.cause, depth + 1);
}
