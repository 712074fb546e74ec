/**
 * GET / (with --playground, on by default on loopback): a page to edit a document, its header,
 * footer and options, and see the PDF beside them, rendered by the real render-sync route from the
 * browser. The page is static and holds nothing secret; its renders pass the same host guard, auth
 * and rate limit as any caller's.
 */
import type { Context, Hono } from 'hono';
import type { AppDeps } from '../deps.js';
import { playgroundSetup } from './playground-fields.js';
import { playgroundCss, playgroundHtml, playgroundPolicy } from './playground-page.js';
import { playgroundScript } from './playground-script.js';

/** Mount the page, its script and its style sheet on `app`. */
export function playgroundRoutes(
  app: Hono<{ Variables: { apiKey: string | undefined } }>,
  deps: Pick<AppDeps, 'config'>,
): void {
  // Built when first asked for, as the OpenAPI document is: reading the schema takes ~12 ms, which every start would pay.
  let html: string | undefined;
  // The function's own text: it was written to need nothing from outside its body.
  const script = `'use strict';\n(${playgroundScript.toString()})();\n`;
  const send = (c: Context, body: string, type: string) => {
    c.header('Content-Type', `${type}; charset=utf-8`);
    c.header('X-Content-Type-Options', 'nosniff');
    // Fetched again (cheaply) after an upgrade, rather than a stale script against a new page.
    c.header('Cache-Control', 'no-cache');
    return c.body(body, 200);
  };
  app.get('/', (c) => {
    c.header('Content-Security-Policy', playgroundPolicy);
    c.header('Referrer-Policy', 'no-referrer');
    return send(c, (html ??= playgroundHtml(playgroundSetup(deps.config.apiKeys.length > 0))), 'text/html');
  });
  app.get('/playground.js', (c) => send(c, script, 'text/javascript'));
  app.get('/playground.css', (c) => send(c, playgroundCss, 'text/css'));
}
