/**
 * Builds the whole application: Nest app, HTTP middleware in order, migrations, seeding hooks.
 * main.ts and the API tests both use it, so tests run exactly what production runs.
 */
import { ConsoleLogger, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import session from 'express-session';
import helmet from 'helmet';
import passport from 'passport';
import { DataSource } from 'typeorm';
import { AppModule } from '../app.module';
import { AuthService } from '../modules/auth/auth.service';
import { DatabaseSessionStore } from '../modules/auth/session.store';
import { loadConfig, type AppConfig } from './config/app-config';
import { AppLogger } from './logging/logging.module';
import { openDatabase, type DatabaseTarget } from './database/data-source-options';
import { logProblem, ProblemFilter, toProblem } from './errors/problem.filter';
import { sendProblem } from './errors/problem';
import { createValidationPipe } from './errors/validation';
import { DomainError } from './errors/domain-error';
import { IMPORT_LIMIT, JSON_LIMIT, jsonBody, jsonOnly, noNulInQuery, originCheck } from './http/body';
import { studioPages } from './http/studio-pages';
import { buildOpenApi, mountOpenApi } from './openapi';
import { REPO_ROOT } from './paths';
import { httpSpans } from './telemetry/http-spans';
import { httpSpansOn } from './telemetry/tracing';

const SESSION_TTL_MS = 14 * 24 * 3600 * 1000;
/** LOG_LEVEL order, to filter the embedded server's lines (they start before the app's logger exists). */
const LEVELS: Record<string, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4, fatal: 5, silent: 6 };
const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

export interface CreatedApp {
  app: NestExpressApplication;
  config: AppConfig;
  db: DatabaseTarget;
}

function requestId(req: Request, res: Response, next: NextFunction) {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', id);
  next();
}

export async function createApp(
  overrides: Partial<AppConfig> = {},
  opts: { logger?: boolean } = {},
): Promise<CreatedApp> {
  // The provider SDKs add headers from these to every request, including to user-supplied api_base
  // hosts: a server-side header (often a credential) must never reach them.
  delete process.env.OPENAI_CUSTOM_HEADERS;
  delete process.env.ANTHROPIC_CUSTOM_HEADERS;
  const config = { ...loadConfig(), ...overrides };
  // the embedded server (no DATABASE_URL) starts before anything else and stops when the app closes
  const pgLog = new Logger('Postgres');
  const minLevel = LEVELS[config.logLevel] ?? LEVELS.info;
  const pgLine = (line: string) => {
    const level = /\b(ERROR|FATAL|PANIC):/.test(line) ? 'error' : /\bWARNING:/.test(line) ? 'warn' : 'debug';
    if (LEVELS[level] >= minLevel) pgLog[level](line);
  };
  const db = await openDatabase(config, pgLine);
  try {
    return await buildApp(config, db, opts);
  } catch (err) {
    await db.embedded?.stop();
    throw err;
  }
}

async function buildApp(config: AppConfig, db: DatabaseTarget, opts: { logger?: boolean }): Promise<CreatedApp> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, db), {
    bodyParser: false,
    bufferLogs: true,
    abortOnError: false,
    // Shutdown (docs/OPERATIONS.md): live runs have ended by the time the server closes; connections
    // still open then (keep-alive, a slow client) are closed rather than waited for.
    forceCloseConnections: true,
    // Until the pino logger takes over (and when boot fails before it does), Nest's own messages are JSON
    // lines too, never ANSI text (docs/OPERATIONS.md, "Health and logs").
    logger: opts.logger === false ? false : new ConsoleLogger({ json: true, colors: false }),
  });
  if (opts.logger !== false) app.useLogger(app.get(AppLogger));
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  app.set('etag', false);
  app.enableShutdownHooks();

  const ds = app.get(DataSource);
  await ds.runMigrations({ transaction: 'each' });

  // tracing on: each request runs in its HTTP server span (http-spans.ts)
  if (httpSpansOn()) app.use(httpSpans(config.version));
  app.use(requestId);
  // a cluster worker (ROLE=worker) runs turns; its port serves probes and metrics, nothing else
  if (config.role === 'worker')
    app.use((req: Request, res: Response, next: NextFunction) => {
      if (req.path === '/health' || req.path === '/metrics') return next();
      failed(
        new DomainError(
          'not_found',
          'This process is a cluster worker (ROLE=worker): it serves /health and /metrics only. Send API requests to an API replica.',
        ),
        res,
      );
    });
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          upgradeInsecureRequests: null,
        },
      },
      crossOriginEmbedderPolicy: false,
    }),
  );
  app.use(originCheck(config.allowedOrigins));
  app.use(noNulInQuery);
  app.use(jsonOnly);
  app.use('/studio/api/workflows/import', jsonBody(IMPORT_LIMIT));
  app.use(jsonBody(JSON_LIMIT));
  const sessions = session({
    name: 'sid',
    store: new DatabaseSessionStore(ds, SESSION_TTL_MS),
    secret: createHash('sha256')
      .update('session:' + config.appSecret)
      .digest('base64url'),
    resave: false,
    saveUninitialized: false,
    proxy: config.trustProxy,
    cookie: { httpOnly: true, sameSite: 'lax', secure: 'auto', maxAge: SESSION_TTL_MS, path: '/' },
  });
  // @types/passport types its middleware as `any` (Authenticator's AuthenticateRet default)
  const passportSession = passport.session() as RequestHandler;
  app.use(passport.initialize());
  // A request authenticated by a bearer token that carries no cookie has no session to load: skip the
  // session machinery (a cost on every API call of a script or agent). Auth routes always get it.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!req.headers.cookie && /^Bearer\s/i.test(req.headers.authorization ?? '') && !req.path.startsWith('/auth/'))
      return next();
    sessions(req, res, (err?: unknown) => (err ? failed(err, res) : passportSession(req, res, next)));
  });
  // A session that cannot be loaded (the database down) answers like any route: a problem, logged with the request id.
  const errorLogger = new Logger('Errors');
  const failed = (err: unknown, res: Response) => {
    const { body, headers } = toProblem(err);
    logProblem(errorLogger, res, body, err);
    sendProblem(res, body, headers);
  };
  app.use(studioPages(join(REPO_ROOT, 'apps/studio/dist')));

  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(createValidationPipe());
  mountOpenApi(app, buildOpenApi(app, config.version));

  await app.get(AuthService).seedAdmin(config.adminUsername, config.adminPassword);
  await app.init();
  return { app, config, db };
}
