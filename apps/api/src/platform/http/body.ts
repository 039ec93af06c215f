/**
 * Request-body rules applied before any route: JSON only for state changes (415), size limits (413),
 * malformed JSON (400), top-level object, at most MAX_JSON_DEPTH levels (400), no NUL characters in the
 * body or query (400), and a same-origin check for state-changing requests (403). With SameSite cookies, JSON-only + Origin is the CSRF defence.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { isIP } from 'node:net';
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

const originOf = (url: string | undefined): string | null => {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
};

/**
 * Whether a GET that starts work (a project turn on `/agent/stream`) comes from another site: a top-level
 * link from another site carries the SameSite=Lax cookie, so the Origin check of state changes is not
 * enough (docs/API.md "The stream"). `Sec-Fetch-Site: cross-site` is refused; `same-site` (a sibling
 * subdomain) only when its Origin/Referer is in ALLOWED_ORIGINS; `same-origin` and `none` (typed or
 * bookmarked) pass. Without the header (an older browser, or not a browser), an Origin or Referer from
 * elsewhere is refused and no Origin/Referer at all passes.
 */
export function isCrossSiteGet(req: Request, allowed: string[]): boolean {
  const site = req.headers['sec-fetch-site'];
  const self = `${req.protocol}://${req.headers.host}`;
  const from = originOf(req.headers.origin) ?? originOf(req.headers.referer);
  const trusted = (o: string | null) => o !== null && (o === self || allowed.includes(o));
  if (site === 'cross-site') return true;
  if (site === 'same-site') return !(from && allowed.includes(from));
  if (site === 'same-origin' || site === 'none') return false;
  return from !== null && !trusted(from);
}

/**
 * Whether the request's `Host` is one a DNS-rebinding page cannot take (docs/API.md "Auth"): `localhost`
 * (and `*.localhost`), an IP address, or the host of an ALLOWED_ORIGINS entry. A rebinding page is served
 * under the attacker's own name, which then resolves to this server, so its requests carry that name.
 * The raw `Host` header is used, never X-Forwarded-Host (a page can set that one).
 */
export function isTrustedHost(req: Request, allowed: string[]): boolean {
  const host = (req.headers.host ?? '').toLowerCase();
  let name: string;
  try {
    name = new URL(`http://${host}`).hostname;
  } catch {
    return false;
  }
  if (!name) return false;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name.replace(/^\[|\]$/g, '')) !== 0) return true;
  return allowed.some((o) => {
    try {
      return new URL(o).host.toLowerCase() === host || new URL(o).hostname.toLowerCase() === name;
    } catch {
      return false;
    }
  });
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

/**
 * Deepest nesting of objects and arrays a JSON body may have (the top-level object is level 1). Deeper
 * bodies are refused here, before validation walks them recursively (docs/API.md "Limits on input").
 */
export const MAX_JSON_DEPTH = 64;

const tooDeep = () =>
  problem(400, `The body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`, 'body.too_deep');

type Finding = { nul: string } | { tooDeep: true } | null;

/** The first NUL character (by field path) or nesting beyond MAX_JSON_DEPTH; recursion stops at the limit. */
function scan(value: unknown, path: string, depth: number): Finding {
  if (typeof value === 'string') return value.includes('\u0000') ? { nul: path || 'body' } : null;
  if (!value || typeof value !== 'object') return null;
  if (depth > MAX_JSON_DEPTH) return { tooDeep: true };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = scan(value[i], `${path}[${i}]`, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k.includes('\u0000')) return { nul: path || 'body' };
    const hit = scan(v, path ? `${path}.${k}` : k, depth + 1);
    if (hit) return hit;
  }
  return null;
}

/**
 * Thrown from the parser's `verify` hook when the raw JSON nests deeper than MAX_JSON_DEPTH: counted on
 * the bytes before JSON.parse, which would otherwise spend ~0.5 s on a megabyte of `[`.
 */
class TooDeep extends Error {
  readonly type = 'body.too_deep';
  readonly status = 400;
}

function verifyDepth(_req: unknown, _res: unknown, buf: Buffer) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) throw new TooDeep('too deep');
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
}

/**
 * NUL characters in the query string (`%00`): Postgres text cannot store them, so refuse them up front.
 * (Path parameters are matched against their own patterns: a slug with `%00` is simply not found.)
 */
export function noNulInQuery(req: Request, res: Response, next: NextFunction) {
  const q = req.url.indexOf('?');
  if (q >= 0 && req.url.includes('%00', q)) {
    return sendProblem(
      res,
      problem(400, 'NUL characters are not allowed.', 'validation', [
        { field: 'query', message: 'must not contain NUL characters (%00)' },
      ]),
    );
  }
  next();
}

export function jsonBody(limit: number) {
  const parse = express.json({ limit, strict: true, type: (req) => isJson(req as Request), verify: verifyDepth });
  return (req: Request, res: Response, next: NextFunction) => {
    parse(req, res, (err?: unknown) => {
      if (err) {
        const e = err as { type?: string; status?: number };
        if (e.type === 'entity.too.large' || e.status === 413) {
          return sendProblem(
            res,
            problem(413, `The body is larger than ${Math.round(limit / 1024)} KiB.`, 'payload_too_large'),
          );
        }
        if (e.type === 'body.too_deep') return sendProblem(res, tooDeep());
        if (e.type === 'entity.parse.failed')
          return sendProblem(res, problem(400, 'The body is not valid JSON.', 'bad_request'));
        return sendProblem(
          res,
          problem(e.status && e.status < 500 ? e.status : 400, 'The body could not be read.', 'bad_request'),
        );
      }
      if (req.body !== undefined && hasBody(req) && isJson(req)) {
        if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
          return sendProblem(res, problem(400, 'The body must be a JSON object.', 'bad_request'));
        }
        const found = scan(req.body, '', 1);
        if (found && 'tooDeep' in found) {
          return sendProblem(res, tooDeep());
        }
        if (found) {
          return sendProblem(
            res,
            problem(400, 'NUL characters are not allowed.', 'validation', [
              { field: found.nul, message: 'must not contain NUL characters' },
            ]),
          );
        }
      }
      if (req.body === undefined) req.body = {};
      next();
    });
  };
}
