import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/**
 * The `*path` wildcard of a route as decoded segments. Express 5 (path-to-regexp v8) splits the raw
 * URL path on "/" and then percent-decodes each segment, so `a%2Fb` arrives as one segment "a/b".
 * The segments are joined and checked by normalizeWorkspacePath in the service, never trusted here.
 */
export const WildcardPath = createParamDecorator((_: unknown, ctx: ExecutionContext): string[] => {
  const raw = ctx.switchToHttp().getRequest<{ params?: Record<string, unknown> }>().params?.path;
  if (Array.isArray(raw)) return raw.map(String);
  return typeof raw === 'string' ? raw.split('/') : [];
});
