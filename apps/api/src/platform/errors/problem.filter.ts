/** The one exception filter: every error leaves as application/problem+json, never with internals. */
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { QueryFailedError } from 'typeorm';
import { DATABASE_RETRY_AFTER_S, isDatabaseUnavailable } from '../database/db-unavailable';
import { errorInfo } from '../logging/error-info';
import { DomainError } from './domain-error';
import { problem, sendProblem, type Problem } from './problem';

const CODE_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

export function toProblem(err: unknown): { body: Problem; headers?: Record<string, string> } {
  if (err instanceof DomainError) {
    return { body: { ...problem(err.status, err.detail, err.code, err.errors), ...err.extra }, headers: err.headers };
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const res = err.getResponse();
    let detail = typeof res === 'string' ? res : (res as { message?: unknown }).message;
    if (Array.isArray(detail)) detail = detail.join('; ');
    if (status === 404 && typeof detail === 'string' && detail.startsWith('Cannot ')) detail = 'No such route.';
    if (status === 429) detail = 'Too many requests; retry later.';
    if (status >= 500) detail = 'Internal error.';
    return { body: problem(status, typeof detail === 'string' ? detail : '', CODE_BY_STATUS[status]) };
  }
  if (isDatabaseUnavailable(err)) {
    return {
      body: problem(503, 'The database is unavailable; retry in a few seconds.', 'database_unavailable'),
      headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_S) },
    };
  }
  if (err instanceof QueryFailedError) {
    const code = (err as unknown as { code?: string }).code;
    if (code === '23505')
      return { body: problem(409, 'A record with these values already exists.', 'record.duplicate') };
    if (code === '23503')
      return { body: problem(409, 'The record is referenced by other records.', 'record.referenced') };
  }
  return { body: problem(500, 'Internal error. The request id identifies it in the server log.', 'internal') };
}

@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(err: unknown, host: ArgumentsHost) {
    const res = host.switchToHttp().getResponse<Response>();
    const { body, headers } = toProblem(err);
    logProblem(this.logger, res, body, err);
    sendProblem(res, body, headers);
  }
}

/** Every 5xx is logged with the request id the client sees in the problem (cookie and bearer requests alike), with stack and cause. */
export function logProblem(logger: Pick<Logger, 'error' | 'warn'>, res: Response, body: Problem, err: unknown) {
  if (body.status < 500) return;
  const id = res.getHeader('x-request-id');
  const entry = { request_id: typeof id === 'string' ? id : undefined, code: body.code, err: errorInfo(err) };
  if (body.code === 'database_unavailable') logger.warn(entry, 'database unavailable');
  else logger.error(entry, 'unhandled error');
}
