/**
 * GET /metrics: the Prometheus text exposition of this server's registry, behind the API key when
 * keys are set unless --metrics-public. On the server's own port with --metrics, or alone on a
 * listener of its own with --metrics-port (metricsApp), so a public server need not expose it.
 */
import { Hono } from 'hono';
import { PdfRenderError } from '../../errors.js';
import { apiKeyAuth } from '../edge/auth.js';
import type { AppDeps } from '../deps.js';
import { errorResponse } from '../error-response.js';
import { hostGuard } from '../edge/host-guard.js';
import type { Listening } from '../public-url.js';

type Deps = Pick<AppDeps, 'config' | 'metrics' | 'events'>;

/** Mount GET /metrics on `app`. */
export function metricsRoute(app: Hono<{ Variables: { apiKey: string | undefined } }>, deps: Deps): void {
  if (!deps.config.metricsPublic) app.use('/metrics', apiKeyAuth(deps.config.apiKeys));
  app.get('/metrics', async (c) => {
    const { registry } = deps.metrics;
    return c.body(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
  });
}

/**
 * The app of the --metrics-port listener, whose address `listening` records: /metrics and nothing
 * else, under the same guard against DNS rebinding as the server's own port when on loopback.
 */
export function metricsApp(deps: Deps, listening: Listening): Hono<{ Variables: { apiKey: string | undefined } }> {
  const app = new Hono<{ Variables: { apiKey: string | undefined } }>();
  app.onError((error, c) => errorResponse(c, error, deps.events));
  app.notFound((c) =>
    errorResponse(c, new PdfRenderError('NOT_FOUND', `only GET /metrics is served on this port`), deps.events),
  );
  app.use(hostGuard({ config: { publicUrl: deps.config.publicUrl, host: deps.config.metricsHost }, listening }));
  metricsRoute(app, deps);
  return app;
}
