/** /mcp: the caller's packs as an MCP server (Streamable HTTP, a personal access token as bearer). */
import { Controller, Delete, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { DomainError } from '../../platform/errors/domain-error';
import { CurrentUser } from '../auth/auth.decorators';
import type { AuthUser } from '../auth/user.entity';
import { BearerOnlyGuard } from './bearer-only.guard';
import { PackMcpService } from './pack-mcp.service';

@ApiExcludeController()
@SkipThrottle()
@UseGuards(BearerOnlyGuard)
@Controller('mcp')
export class McpController {
  constructor(private readonly mcp: PackMcpService) {}

  @Post()
  @HttpCode(200)
  handle(@CurrentUser() u: AuthUser, @Req() req: Request, @Res() res: Response) {
    return this.mcp.handle(u, req, res);
  }

  /** Stateless server: no standalone SSE stream and no session to end. */
  @Get()
  stream() {
    throw postOnly();
  }

  @Delete()
  endSession() {
    throw postOnly();
  }
}

function postOnly() {
  return new DomainError('method_not_allowed', 'The MCP endpoint takes POST only (stateless).', undefined, {
    Allow: 'POST',
  });
}
