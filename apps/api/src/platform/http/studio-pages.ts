/**
 * Serves the built studio SPA: assets under /studio/assets are public, every other /studio page needs
 * a session (302 to /studio/login?next=…), /studio/login and /demo are public, deep links get index.html.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { problem, sendProblem } from '../errors/problem';

export function studioPages(distDir: string) {
  const assets = express.static(distDir, { index: false, fallthrough: true, maxAge: '1h' });
  let html: string | null = null;
  const indexHtml = () => {
    if (html === null && existsSync(join(distDir, 'index.html'))) html = readFileSync(join(distDir, 'index.html'), 'utf8');
    return html;
  };
  const sendIndex = (res: Response) => {
    const page = indexHtml();
    if (!page) return sendProblem(res, problem(503, 'The studio is not built. Run `npm run build`.', 'unavailable'));
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(page);
  };

  return (req: Request, res: Response, next: NextFunction) => {
    const path = req.path;
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (path === '/') return res.redirect(302, '/studio');
    if (path === '/demo' || path === '/demo/') return sendIndex(res);
    if (path !== '/studio' && !path.startsWith('/studio/')) return next();
    if (path.startsWith('/studio/api/') || path === '/studio/api') return next();
    if (/\.[a-z0-9]+$/i.test(path)) {
      req.url = req.url.slice('/studio'.length) || '/';
      return assets(req, res, () => {
        req.url = '/studio' + req.url;
        sendProblem(res, problem(404, 'No such file.', 'not_found'));
      });
    }
    if (path === '/studio/login' || path === '/studio/login/') return sendIndex(res);
    if (!(req as Request & { user?: unknown }).user) {
      return res.redirect(302, `/studio/login?next=${encodeURIComponent(req.originalUrl)}`);
    }
    sendIndex(res);
  };
}
