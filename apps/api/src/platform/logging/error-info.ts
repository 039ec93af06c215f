/** An error for a log line: name, message, code, stack and its cause chain (a driver error's cause names the socket failure). */
export function errorInfo(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error) || depth > 3) return String(err);
  const e = err as Error & { code?: unknown; cause?: unknown; driverError?: unknown };
  const cause = e.cause ?? e.driverError;
  return {
    name: e.name,
    message: e.message,
    code: e.code,
    stack: e.stack,
    ...(cause !== undefined && cause !== err ? { cause: errorInfo(cause, depth + 1) } : {}),
  };
}
