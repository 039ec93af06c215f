/** The application: platform modules (config, database, logging, rate limits) plus one module per concept. */
import { DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerModule, type ThrottlerModuleOptions } from '@nestjs/throttler';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Request } from 'express';
import { APP_CONFIG, isCluster, type AppConfig } from './platform/config/app-config';
import type { DatabaseTarget } from './platform/database/data-source-options';
import { AppLogger, loggingModule } from './platform/logging/logging.module';
import { AuthModule } from './modules/auth/auth.module';
import { ClusterModule } from './modules/cluster/cluster.module';
import { HealthModule } from './modules/health/health.module';
import { LimitsModule } from './modules/limits/limits.module';
import { PgThrottlerStorage } from './modules/limits/pg-throttler-storage';
import { TelemetryModule } from './modules/telemetry/telemetry.module';
import { FEATURE_MODULES } from './feature-modules';

/** Stops the embedded database server last: Nest closes the TypeORM pool (a deeper module) first. */
class EmbeddedDatabaseLifecycle implements OnApplicationShutdown {
  constructor(private readonly db: DatabaseTarget) {}
  async onApplicationShutdown() {
    await this.db.embedded?.stop();
  }
}

/** The login and demo rate limits (docs/OPERATIONS.md, "Limits"). */
function throttlerOptions(config: AppConfig): ThrottlerModuleOptions {
  return {
    setHeaders: false,
    throttlers: [
      { name: 'client', limit: config.loginLimitPerClient, ttl: config.loginWindowMs },
      {
        name: 'user',
        limit: config.loginLimitPerUser,
        ttl: config.loginWindowMs,
        getTracker: (req: Record<string, unknown>) => {
          const username = ((req as unknown as Request).body as { username?: unknown } | undefined)?.username;
          return 'user:' + (typeof username === 'string' ? username.toLowerCase() : '');
        },
      },
      {
        name: 'demo',
        limit: config.demoLimitPerMinute,
        ttl: 60_000,
        // one budget per client for POST /agent/demo and the anonymous stream together
        generateKey: (_ctx, tracker, name) => `${name}:${tracker}`,
        // only demo turns count: a project stream or a resume on /agent/stream is not a demo request
        skipIf: (ctx) => {
          const req = ctx.switchToHttp().getRequest<Request>();
          return (
            req.path === '/agent/stream' &&
            !!(req.query.project_slug || req.query.last_event_id || req.headers['last-event-id'])
          );
        },
      },
    ],
  };
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, db: DatabaseTarget): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [
        loggingModule(config.logLevel),
        TypeOrmModule.forRoot({ ...db.options, autoLoadEntities: true }),
        // ROLE=all: the throttler's in-memory storage; cluster mode: one Postgres window per key for all processes
        isCluster(config)
          ? ThrottlerModule.forRootAsync({
              imports: [LimitsModule],
              inject: [PgThrottlerStorage],
              useFactory: (storage: PgThrottlerStorage) => ({ ...throttlerOptions(config), storage }),
            })
          : ThrottlerModule.forRoot(throttlerOptions(config)),
        LimitsModule,
        ClusterModule,
        AuthModule,
        HealthModule,
        TelemetryModule,
        ...FEATURE_MODULES,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        AppLogger,
        { provide: EmbeddedDatabaseLifecycle, useValue: new EmbeddedDatabaseLifecycle(db) },
      ],
      exports: [APP_CONFIG],
    };
  }
}
