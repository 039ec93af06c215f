import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { Request } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { DomainError, invalid } from '../../platform/errors/domain-error';
import { flattenValidationErrors } from '../../platform/errors/validation';
import { ADMIN_ONLY, IS_PUBLIC, METRICS_SCRAPER } from './auth.decorators';
import { AuthService } from './auth.service';
import { LoginDto } from './dto/credentials.dto';
import type { AuthUser } from './user.entity';

/**
 * Global guard: resolves the caller (session via passport, or `Authorization: Bearer`), then
 * requires one unless the route is @Public(), and an admin on @AdminOnly() routes. A @MetricsScraper()
 * route also lets in the METRICS_TOKEN bearer.
 */
@Injectable()
export class RequestAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<Request & { user?: AuthUser }>();
    const header = req.headers.authorization;
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (header) {
      const m = /^Bearer\s+(\S+)$/i.exec(header);
      if (m && this.reflector.getAllAndOverride<boolean>(METRICS_SCRAPER, targets) && this.isMetricsToken(m[1]))
        return true;
      const user = m ? await this.auth.userForToken(m[1]) : null;
      if (!user) throw new DomainError('unauthorized', 'The bearer token is invalid or revoked.');
      req.user = user;
    }
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    if (!req.user) throw new DomainError('unauthorized', 'Log in or send a bearer token.');
    if (this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, targets) && !req.user.is_admin) {
      throw new DomainError('forbidden', 'Only administrators can do this.');
    }
    return true;
  }

  /** Compared as hashes: constant time whatever the lengths. */
  private isMetricsToken(token: string): boolean {
    const expected = this.config.metricsToken;
    if (!expected) return false;
    const digest = (s: string) => createHash('sha256').update(s).digest();
    return timingSafeEqual(digest(token), digest(expected));
  }
}

/** Validates the login body before passport sees it (a missing field is a 400, not a 401). */
@Injectable()
export class LoginBodyGuard implements CanActivate {
  async canActivate(ctx: ExecutionContext) {
    const req = ctx.switchToHttp().getRequest<Request>();
    const dto = plainToInstance(LoginDto, req.body ?? {});
    const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
    if (errors.length) throw invalid(flattenValidationErrors(errors));
    return true;
  }
}

/** passport-local, then a session login (passport regenerates the session id). */
@Injectable()
export class LocalLoginGuard extends AuthGuard('local') {
  async canActivate(ctx: ExecutionContext) {
    const ok = (await super.canActivate(ctx)) as boolean;
    await super.logIn(ctx.switchToHttp().getRequest());
    return ok;
  }

  handleRequest<T>(err: unknown, user: T): T {
    if (err) throw err instanceof Error ? err : new Error('Authentication failed.', { cause: err });
    if (!user) throw new DomainError('auth.invalid_credentials', 'Wrong username or password.');
    return user;
  }
}

/** Rate limits with a plain `Retry-After` header and a problem body. */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected async throwThrottlingException(_ctx: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw new DomainError('rate_limited', 'Too many attempts; retry later.', undefined, {
      'Retry-After': String(Math.max(1, Math.ceil(detail.timeToBlockExpire))),
    });
  }
}
