/**
 * The HTTP server span of each request while tracing is on (docs/decisions/observability.md): opened
 * by the first middleware, the caller's W3C `traceparent` its parent, and the context the rest of the
 * request runs in — so every statement, turn and model call of the request is under it (the JSON body
 * parser keeps that context across the body's socket events: raw-body binds its callback); ended when
 * the response closes, named after the matched route (`POST /agent/chat`). Stable HTTP semantic conventions; the query string (a
 * streamed chat's message travels in it) is never recorded.
 *
 * Made with the OpenTelemetry API here rather than by `@opentelemetry/instrumentation-http`, which
 * patches `http.Server#emit`, rebinds each request's and response's event emitters and computes two
 * generations of attributes: with it, tracing cost about 0.4 ms more CPU per turn than with this
 * (docs/performance.md, "Telemetry").
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';

/** Scrapes and probes make no traces (a span every few seconds, saying nothing). */
const UNTRACED_PATHS = /^\/(health|metrics)(\/|\?|$)/;

/**
 * By the end of a request Express has matched a route (`req.route`): the span is named after it and
 * gets `http.route`. A request answered before routing (a 401 from a middleware, a 404) keeps the bare method.
 */
export function nameAfterRoute(span: Span, request: unknown) {
  const req = request as { method?: string; route?: { path?: unknown } };
  const route = req.route?.path;
  if (typeof route !== 'string') return;
  span.updateName(`${req.method ?? 'HTTP'} ${route}`);
  span.setAttribute('http.route', route);
}

/** The first middleware: the request runs in its span. */
export function httpSpans(version: string) {
  const tracer = trace.getTracer('agentic-workflow-service/http', version);
  return (req: Request, res: Response, next: NextFunction) => {
    const url = req.url;
    if (UNTRACED_PATHS.test(url)) return next();
    const q = url.indexOf('?');
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer.startSpan(
      req.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': req.method,
          'url.path': q < 0 ? url : url.slice(0, q),
          'url.scheme': req.protocol,
          'network.protocol.version': req.httpVersion,
          // behind a proxy (TRUST_PROXY) the forwarded client, like the logs
          'client.address': req.ip,
          'user_agent.original': req.headers['user-agent'],
        },
      },
      parent,
    );
    res.once('close', () => {
      nameAfterRoute(span, req);
      const status = res.statusCode;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) {
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      } else if (!res.writableFinished) span.setAttribute('error.type', 'aborted');
      span.end();
    });
    context.with(trace.setSpan(parent, span), next);
  };
}
