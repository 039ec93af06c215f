import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  ParseIntPipe,
  Post,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { promisify } from 'node:util';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { DbIdPipe } from '../../platform/database/db-id';
import { DomainError } from '../../platform/errors/domain-error';
import { isTrustedHost } from '../../platform/http/body';
import { CurrentUser, Public } from './auth.decorators';
import { LocalLoginGuard, LoginBodyGuard, RateLimitGuard } from './auth.guards';
import { AuthService } from './auth.service';
import {
  CreatedTokenView,
  CreateTokenDto,
  CredentialsDto,
  LoginDto,
  SetupStateView,
  TokenView,
  UserView,
} from './dto/credentials.dto';
import type { AuthUser } from './user.entity';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Lets the studio open on the owner-account form on a fresh install. */
  @Public()
  @Get('setup')
  @ApiOkResponse({ type: SetupStateView })
  async setupState(): Promise<SetupStateView> {
    return { needed: await this.auth.setupNeeded() };
  }

  @Public()
  @Post('setup')
  @ApiCreatedResponse({ type: UserView, description: 'The first user (an admin), logged in.' })
  async setup(@Body() dto: CredentialsDto, @Req() req: Request) {
    if (!isTrustedHost(req, this.config.allowedOrigins)) {
      throw new DomainError(
        'origin.untrusted_host',
        'First-run setup answers only on localhost, an IP address or a host listed in ALLOWED_ORIGINS (a defence against DNS rebinding): open the studio by one of those, or set ADMIN_USERNAME and ADMIN_PASSWORD.',
      );
    }
    const user = await this.auth.setup(dto.username, dto.password);
    await promisify(req.login.bind(req))(user);
    return user;
  }

  @Public()
  @Post('login')
  @HttpCode(200)
  @SkipThrottle({ demo: true })
  @UseGuards(RateLimitGuard, LoginBodyGuard, LocalLoginGuard)
  @ApiOkResponse({ type: UserView })
  login(@Body() _dto: LoginDto, @CurrentUser() user: AuthUser) {
    return user;
  }

  @Public()
  @Post('logout')
  @HttpCode(204)
  @ApiNoContentResponse()
  async logout(@Req() req: Request, @Res({ passthrough: true }) res: Response) {
    if (req.session) {
      await promisify(req.logout.bind(req))();
      await promisify(req.session.destroy.bind(req.session))();
    }
    res.clearCookie('sid', { path: '/' });
  }

  @Get('me')
  @ApiOkResponse({ type: UserView })
  me(@CurrentUser() user: AuthUser) {
    return user;
  }

  @Post('tokens')
  @ApiCreatedResponse({ type: CreatedTokenView })
  createToken(@CurrentUser() user: AuthUser, @Body() dto: CreateTokenDto) {
    return this.auth.createToken(user, dto.name);
  }

  @Get('tokens')
  @ApiOkResponse({ type: [TokenView] })
  listTokens(@CurrentUser() user: AuthUser) {
    return this.auth.listTokens(user);
  }

  @Delete('tokens/:id')
  @HttpCode(204)
  @ApiNoContentResponse()
  revokeToken(@CurrentUser() user: AuthUser, @Param('id', ParseIntPipe, new DbIdPipe('Token')) id: number) {
    return this.auth.revokeToken(user, id);
  }
}
