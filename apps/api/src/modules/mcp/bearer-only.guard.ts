import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { DomainError } from '../../platform/errors/domain-error';

/**
 * `/mcp` answers bearer tokens only (personal access tokens): a browser session cookie is not enough,
 * so a page cannot drive the caller's packs. The global guard has already checked the token itself.
 */
@Injectable()
export class BearerOnlyGuard implements CanActivate {
  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<Request>();
    if (!req.headers.authorization)
      throw new DomainError('unauthorized', 'Send a personal access token as a bearer token.', undefined, {
        'WWW-Authenticate': 'Bearer',
      });
    return true;
  }
}
