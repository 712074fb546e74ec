/** The route that answered a request, as its pattern: what metrics and traces name a request by. */
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';

/**
 * The pattern of the route whose handler answered ("/api/pdfs/jobs/:jobId"), never the path itself,
 * which holds ids (a file's is the credential to download it); undefined when no route did (a 404).
 * The handler is the last matched route that is not middleware (app.use's method is ALL).
 */
export const routePattern = (c: Context): string | undefined =>
  matchedRoutes(c).findLast((route) => route.method !== 'ALL')?.path;
