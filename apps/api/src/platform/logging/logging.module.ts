/**
 * Structured JSON logs (pino) with a request id per request (X-Request-Id, echoed back).
 * Request logs carry method, path, status and timing only: no headers, bodies or query strings,
 * so passwords, tokens, cookies and API keys cannot reach a log line.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { Logger, LoggerModule } from 'nestjs-pino';

const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

export function loggingModule(level: string) {
  return LoggerModule.forRoot({
    pinoHttp: {
      level,
      genReqId: (req: IncomingMessage, res: ServerResponse) => {
        // The requestId middleware (create-app.ts) runs first and has already set the header.
        const existing = res.getHeader('x-request-id');
        if (typeof existing === 'string') return existing;
        const incoming = req.headers['x-request-id'];
        return typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
      },
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          path: String(req.url).split('?')[0],
        }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      },
      redact: {
        paths: ['req.headers', 'res.headers', '*.password', '*.api_key', '*.token', '*.authorization', '*.cookie'],
        remove: true,
      },
      customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
        err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
      autoLogging: { ignore: (req: IncomingMessage) => req.url === '/health' },
    },
  });
}

/** Nest's bootstrap chatter (one line per module and route) is debug, not info. */
const BOOT_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory']);

@Injectable()
export class AppLogger extends Logger {
  log(message: unknown, ...rest: unknown[]) {
    const context = rest[rest.length - 1];
    if (typeof context === 'string' && BOOT_CONTEXTS.has(context)) return super.debug(message, ...rest);
    return super.log(message, ...rest);
  }
}
