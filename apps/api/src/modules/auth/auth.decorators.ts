import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { DomainError } from '../../platform/errors/domain-error';
import type { AuthUser } from './user.entity';

export const IS_PUBLIC = 'auth:public';
export const ADMIN_ONLY = 'auth:admin';
export const METRICS_SCRAPER = 'auth:metrics-scraper';

/** The route is reachable without login; the caller's identity is still resolved when present. */
export const Public = () => applyDecorators(SetMetadata(IS_PUBLIC, true), ApiExtension('x-public', true));
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);
/** The route also lets in `Authorization: Bearer $METRICS_TOKEN` (a Prometheus scraper, no user). */
export const MetricsScraper = () => SetMetadata(METRICS_SCRAPER, true);

/** The logged-in user (the global guard guarantees one on non-public routes). */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthUser => {
  const user = ctx.switchToHttp().getRequest<{ user?: AuthUser }>().user;
  if (!user) throw new DomainError('unauthorized', 'Log in or send a bearer token.');
  return user;
});

/** The user when there is one (public routes). */
export const OptionalUser = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): AuthUser | null =>
    ctx.switchToHttp().getRequest<{ user?: AuthUser }>().user ?? null,
);
