/** Writes an RFC 9457 problem+json response. Used by the exception filter and by raw Express middleware. */
import type { Response } from 'express';
import { STATUS_CODES } from 'node:http';
import type { FieldProblem } from './domain-error';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code?: string;
  errors?: FieldProblem[];
  request_id?: string;
  [extra: string]: unknown;
}

export function problem(status: number, detail: string, code?: string, errors?: FieldProblem[]): Problem {
  const p: Problem = {
    type: code ? `urn:problem:${code}` : 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
  };
  if (code) p.code = code;
  if (errors && errors.length) p.errors = errors;
  return p;
}

export function sendProblem(res: Response, p: Problem, headers?: Record<string, string>) {
  if (res.headersSent) {
    res.end();
    return;
  }
  const id = res.getHeader('x-request-id');
  if (typeof id === 'string') p.request_id = id;
  if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(p.status).type('application/problem+json').send(JSON.stringify(p));
}
