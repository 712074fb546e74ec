/**
 * createApp: the Hono app of `pdfrender serve`, built only from what it is given (config, engine,
 * store, clock, log), so tests drive it with app.request() or over a real socket alike.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { PdfRenderError } from '../errors.js';
import { accessLog } from './access-log.js';
import { asyncRoutes } from './async-routes.js';
import { apiKeyAuth } from './auth.js';
import type { AppDeps } from './deps.js';
import { errorResponse } from './error-response.js';
import { filesRoute } from './files-route.js';
import { healthRoutes } from './health-routes.js';
import { openApiDocument } from './openapi.js';
import { renderSyncRoute } from './render-sync-route.js';
import { webhooksRoutes } from './webhooks-routes.js';

/** Every route and the methods it takes, for 405 answers. */
const routeMethods: Array<[RegExp, string[]]> = [
  [/^\/api\/pdfs\/render-(sync|async)$/, ['POST']],
  [/^\/api\/pdfs\/jobs\/[^/]+$/, ['GET']],
  [/^\/api\/pdfs\/files\/[^/]+$/, ['GET']],
  [/^\/api\/webhooks$/, ['GET', 'POST']],
  [/^\/api\/webhooks\/[^/]+$/, ['DELETE']],
  [/^\/(healthz|readyz|openapi\.json)$/, ['GET']],
];

/** Build the app. */
export function createApp(deps: AppDeps, version: string): Hono<{ Variables: { apiKey: string | undefined } }> {
  const app = new Hono<{ Variables: { apiKey: string | undefined } }>();
  app.onError((error, c) => errorResponse(c, error));
  app.notFound((c) => {
    const allowed = routeMethods.find(([pattern]) => pattern.test(c.req.path))?.[1];
    if (allowed) {
      c.header('Allow', allowed.join(', '));
      return errorResponse(c, new PdfRenderError('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed here; use ${allowed.join(' or ')}`));
    }
    return errorResponse(c, new PdfRenderError('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`));
  });
  app.use(accessLog(deps.log));
  app.use('/api/*', async (_, next) => {
    if (deps.lifecycle.draining) throw new PdfRenderError('SHUTTING_DOWN', 'the server is shutting down; try another instance', { retryAfter: 5 });
    deps.lifecycle.inFlight += 1;
    try {
      await next();
    } finally {
      deps.lifecycle.inFlight -= 1;
    }
  });
  app.use('/api/*', apiKeyAuth(deps.config.apiKeys));
  // Counts bytes as they arrive, so a body without Content-Length is cut off at the limit too.
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: deps.config.maxBody,
      onError: () => {
        throw new PdfRenderError('PAYLOAD_TOO_LARGE', `the body is larger than the server's limit of ${deps.config.maxBody} bytes`);
      },
    }),
  );
  const document = openApiDocument(version);
  app.get('/openapi.json', (c) => c.json(document));
  healthRoutes(app, deps);
  renderSyncRoute(app, deps);
  asyncRoutes(app, deps);
  filesRoute(app, deps);
  webhooksRoutes(app, deps);
  return app;
}
