/**
 * createApp: the Hono app of `pdfrender serve`, built only from what it is given (config, engine,
 * store, clock, log), so tests drive it with app.request() or over a real socket alike.
 */
import { Hono, type Context } from 'hono';
import { methodNotAllowed } from 'hono/method-not-allowed';
import type { Engine } from '../engine/engine.js';
import { PdfRenderError } from '../errors.js';
import { databaseFault } from '../store/storage-errors.js';
import { accessLog } from './edge/access-log.js';
import { assignRequestId } from './edge/request-id.js';
import { httpSpan } from './edge/http-span.js';
import { asyncRoutes } from './routes/async-routes.js';
import { apiKeyAuth } from './edge/auth.js';
import { requestBodyLimit } from './edge/body-limit.js';
import { corsAnswers, crossSiteGuard } from './edge/cross-site.js';
import type { AppDeps } from './deps.js';
import { errorResponse } from './error-response.js';
import { filesRoute, isFileDownload } from './routes/files-route.js';
import { healthRoutes } from './routes/health-routes.js';
import { metricsRoute } from './routes/metrics-route.js';
import { countRequests } from '../metrics/http-metrics.js';
import { hostGuard } from './edge/host-guard.js';
import { openApiDocument } from './api/openapi.js';
import { playgroundRoutes } from './playground/playground-route.js';
import { publicBase } from './public-url.js';
import { rateLimitPolicy } from './edge/rate-limit.js';
import { renderSyncPaths, renderSyncRoute } from './routes/render-sync-route.js';
import { webhooksRoutes } from './routes/webhooks-routes.js';

export interface AppOptions {
  /**
   * Fires when a stopping server's grace period runs out: every render in flight then ends, and its
   * caller gets the signal's reason (a 503 SHUTTING_DOWN) instead of a dropped connection.
   */
  stopRenders?: AbortSignal;
}

/** Build the app. */
export function createApp(
  deps: AppDeps,
  version: string,
  options: AppOptions = {},
): Hono<{ Variables: { apiKey: string | undefined } }> {
  const app = new Hono<{ Variables: { apiKey: string | undefined } }>();
  // The routes pass the request's signal to engine.render; this engine adds the stop signal to it.
  const routeDeps: AppDeps = options.stopRenders
    ? { ...deps, engine: stoppable(deps.engine, options.stopRenders) }
    : deps;
  // A database error no store call classified (a read meeting a lock) still gets its documented status.
  app.onError((error, c) => errorResponse(c, databaseFault(error) ?? error, deps.events));
  app.notFound((c) =>
    errorResponse(c, new PdfRenderError('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`), deps.events),
  );
  // Outside the access log, whose line then carries the request's ID and trace id.
  app.use(httpSpan());
  app.use(assignRequestId());
  app.use(accessLog(deps.log));
  app.use(countRequests(deps.metrics));
  // Hono's own: a 404 at a path that a route serves with other methods becomes 405 with Allow (read
  // off app.routes, GET bringing HEAD), answered in the API's error shape.
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, allowed) => {
        c.header('Allow', allowed.join(', '));
        const error = new PdfRenderError(
          'METHOD_NOT_ALLOWED',
          `${c.req.method} is not allowed here; use ${allowed.join(' or ')}`,
        );
        return errorResponse(c, error, deps.events);
      },
    }),
  );
  app.use(hostGuard(deps));
  // Before everything that can refuse, so a browser page allowed by --cors-origin can read why.
  if (deps.config.corsOrigins.length > 0) app.use(corsAnswers(deps.config.corsOrigins));
  app.use('/api/*', crossSiteGuard(deps.config.corsOrigins));
  // First of the route's own, so refusals before the route (draining, auth, body limit) carry the policy too.
  for (const path of renderSyncPaths) app.use(path, rateLimitPolicy(deps));
  app.use('/api/*', async (_, next) => {
    if (deps.lifecycle.draining)
      throw new PdfRenderError('SHUTTING_DOWN', 'the server is shutting down; try another instance', { retryAfter: 5 });
    deps.lifecycle.inFlight += 1;
    try {
      await next();
    } finally {
      deps.lifecycle.inFlight -= 1;
    }
  });
  // A file URL is a capability (an unguessable id), fetched by RenderPDF.io clients without the key.
  app.use('/api/*', apiKeyAuth(deps.config.apiKeys, deps.config.privateFiles ? undefined : isFileDownload));
  // Every POST and DELETE stores something: refused while the data dir is full or gone, before any render.
  app.use('/api/*', async (c, next) => {
    if (c.req.method === 'POST' || c.req.method === 'DELETE') deps.storage.require();
    await next();
  });
  // Counts bytes as they arrive, so a body without Content-Length is cut off at the limit too.
  app.use(
    '/api/*',
    requestBodyLimit(deps.config.maxBody, () => {
      throw new PdfRenderError(
        'PAYLOAD_TOO_LARGE',
        `the body is larger than the server's limit of ${deps.config.maxBody} bytes`,
      );
    }),
  );
  // On this port, unless a listener of its own serves it (--metrics-port).
  const metricsHere = deps.config.metrics && deps.config.metricsPort === undefined;
  // Built when first asked for: generating it takes ~100 ms, which every server start would pay.
  let document: ReturnType<typeof openApiDocument> | undefined;
  app.get('/openapi.json', (c) =>
    c.json({
      ...(document ??= openApiDocument(version, { playground: deps.config.playground, metrics: metricsHere })),
      servers: [{ url: serverUrl(c, deps) }],
    }),
  );
  healthRoutes(app, routeDeps);
  if (metricsHere) metricsRoute(app, deps);
  renderSyncRoute(app, routeDeps);
  asyncRoutes(app, routeDeps);
  filesRoute(app, routeDeps);
  webhooksRoutes(app, routeDeps);
  if (deps.config.playground) playgroundRoutes(app, routeDeps);
  return app;
}

/** Where the OpenAPI document says the API answers: this server's public base, or relative to the document when there is none yet (a test's app without a listener). */
function serverUrl(c: Context, deps: AppDeps): string {
  try {
    return publicBase(c, deps);
  } catch {
    return '/';
  }
}

/** `engine` whose renders also end when `stop` fires, rejecting with its reason. */
function stoppable(engine: Engine, stop: AbortSignal): Engine {
  return {
    ...engine,
    render: (request, renderOptions = {}) =>
      engine
        .render(request, {
          ...renderOptions,
          signal: renderOptions.signal ? AbortSignal.any([renderOptions.signal, stop]) : stop,
        })
        // Whatever the engine made of the abort (a wait for a page cut short, say), the caller hears why.
        .catch((error: unknown) => {
          throw stop.aborted ? stop.reason : error;
        }),
  };
}
