/** Auth owns users, sessions, personal access tokens and the global request guard. */
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessToken } from './access-token.entity';
import { AuthController } from './auth.controller';
import { RequestAuthGuard } from './auth.guards';
import { AuthService } from './auth.service';
import { LocalStrategy } from './local.strategy';
import { SessionSerializer } from './session.serializer';
import { SessionRecord } from './session.entity';
import { User } from './user.entity';
import { UsersController } from './users.controller';

@Module({
  imports: [PassportModule.register({ session: true }), TypeOrmModule.forFeature([User, SessionRecord, AccessToken])],
  controllers: [AuthController, UsersController],
  providers: [AuthService, LocalStrategy, SessionSerializer, { provide: APP_GUARD, useClass: RequestAuthGuard }],
  exports: [AuthService],
})
export class AuthModule {}
