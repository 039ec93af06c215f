/**
 * Serves the built studio SPA: assets under /studio/assets are public, every other /studio page needs
 * a session (302 to /studio/login?next=…), /studio/login and /demo are public, deep links get index.html.
 * Responses are compressed (brotli or gzip, as the browser accepts, by the `compression` middleware);
 * Vite's content-hashed files under assets/ are cached for a year (`immutable`), index.html is
 * revalidated on every load (`no-cache`) so a new build is picked up at once (docs/OPERATIONS.md).
 */
import compression from 'compression';
import express, { type NextFunction, type Request, type Response } from 'express';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { problem, sendProblem } from '../errors/problem';

export function studioPages(distDir: string) {
  const assets = express.static(distDir, {
    index: false,
    fallthrough: true,
    cacheControl: false,
    setHeaders: (res, file) => {
      // Vite names every file it writes to assets/ by its content hash (apps/studio/vite.config.ts)
      const hashed = /[\\/]assets[\\/][^\\/]+$/.test(file);
      res.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
    },
  });
  // Only what this handler serves is compressed: never the API or the event stream (which must not be buffered).
  const compress = compression({ threshold: 1024 });
  let html: string | null = null;
  const indexHtml = () => {
    if (html === null && existsSync(join(distDir, 'index.html')))
      html = readFileSync(join(distDir, 'index.html'), 'utf8');
    return html;
  };
  const sendIndex = (res: Response) => {
    const page = indexHtml();
    if (!page) return sendProblem(res, problem(503, 'The studio is not built. Run `npm run build`.', 'unavailable'));
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(page);
  };

  const serve = (req: Request, res: Response, next: NextFunction) => {
    const path = req.path;
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (path === '/') return res.redirect(302, '/studio');
    if (path === '/demo' || path === '/demo/') return sendIndex(res);
    if (path !== '/studio' && !path.startsWith('/studio/')) return next();
    if (path.startsWith('/studio/api/') || path === '/studio/api') return next();
    if (/\.[a-z0-9]+$/i.test(path)) {
      req.url = req.url.slice('/studio'.length) || '/';
      assets(req, res, () => {
        req.url = '/studio' + req.url;
        sendProblem(res, problem(404, 'No such file.', 'not_found'));
      });
      return;
    }
    if (path === '/studio/login' || path === '/studio/login/') return sendIndex(res);
    if (!(req as Request & { user?: unknown }).user) {
      return res.redirect(302, `/studio/login?next=${encodeURIComponent(req.originalUrl)}`);
    }
    sendIndex(res);
  };

  return (req: Request, res: Response, next: NextFunction) => {
    const path = req.path;
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const ours =
      path === '/' ||
      path === '/demo' ||
      path === '/demo/' ||
      ((path === '/studio' || path.startsWith('/studio/')) &&
        !(path.startsWith('/studio/api/') || path === '/studio/api'));
    if (!ours) return next();
    compress(req, res, () => serve(req, res, next));
  };
}
