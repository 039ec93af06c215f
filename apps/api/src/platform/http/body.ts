/**
 * Request-body rules applied before any route: JSON only for state changes (415), size limits (413),
 * malformed JSON (400), top-level object, no NUL characters anywhere (400), and a same-origin check
 * for state-changing requests (403). With SameSite cookies, JSON-only + Origin is the CSRF defence.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { problem, sendProblem } from '../errors/problem';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const JSON_LIMIT = 1024 * 1024;
export const IMPORT_LIMIT = 8 * 1024 * 1024;

function hasBody(req: Request) {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

function isJson(req: Request) {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export function originCheck(allowed: string[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!STATE_CHANGING.has(req.method)) return next();
    const origin = req.headers.origin;
    const site = req.headers['sec-fetch-site'];
    if (origin && origin !== 'null') {
      const self = `${req.protocol}://${req.headers.host}`;
      if (origin !== self && !allowed.includes(origin)) {
        return sendProblem(res, problem(403, 'Cross-site requests are not allowed.', 'origin.cross_site'));
      }
    } else if (origin === 'null' || site === 'cross-site') {
      return sendProblem(res, problem(403, 'Cross-site requests are not allowed.', 'origin.cross_site'));
    }
    next();
  };
}

export function jsonOnly(req: Request, res: Response, next: NextFunction) {
  if (STATE_CHANGING.has(req.method) && hasBody(req) && !isJson(req)) {
    return sendProblem(res, problem(415, 'Send the body as application/json.', 'unsupported_media_type'));
  }
  next();
}

function findNul(value: unknown, path: string, depth = 0): string | null {
  if (depth > 64) return null;
  if (typeof value === 'string') return value.includes('\u0000') ? path || 'body' : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNul(value[i], `${path}[${i}]`, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) return path || 'body';
      const hit = findNul(v, path ? `${path}.${k}` : k, depth + 1);
      if (hit) return hit;
    }
  }
  return null;
}

export function jsonBody(limit: number) {
  const parse = express.json({ limit, strict: true, type: (req) => isJson(req as Request) });
  return (req: Request, res: Response, next: NextFunction) => {
    parse(req, res, (err?: unknown) => {
      if (err) {
        const e = err as { type?: string; status?: number };
        if (e.type === 'entity.too.large' || e.status === 413) {
          return sendProblem(res, problem(413, `The body is larger than ${Math.round(limit / 1024)} KiB.`, 'payload_too_large'));
        }
        if (e.type === 'entity.parse.failed') return sendProblem(res, problem(400, 'The body is not valid JSON.', 'bad_request'));
        return sendProblem(res, problem(e.status && e.status < 500 ? e.status : 400, 'The body could not be read.', 'bad_request'));
      }
      if (req.body !== undefined && hasBody(req) && isJson(req)) {
        if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
          return sendProblem(res, problem(400, 'The body must be a JSON object.', 'bad_request'));
        }
        const nul = findNul(req.body, '');
        if (nul) {
          return sendProblem(res, problem(400, 'NUL characters are not allowed.', 'validation', [{ field: nul, message: 'must not contain NUL characters' }]));
        }
      }
      if (req.body === undefined) req.body = {};
      next();
    });
  };
}
