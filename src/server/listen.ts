/**
 * Put the app on its port with the connection bounds of the config: slow headers and slow bodies
 * are cut (Node answers 408 and closes), and connections beyond the cap are closed at once.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import type { ServeConfig } from './config.js';
import { PdfRenderError } from '../errors.js';
import { CountedResponse } from './edge/counted-response.js';
import type { Listening } from './public-url.js';
import { bracketed } from './public-url.js';

type ListenConfig = Pick<ServeConfig, 'port' | 'host' | 'headersTimeout' | 'requestTimeout' | 'maxConnections'>;

/** Listen on config.host:config.port and record the real address in `listening`. */
export function listen(app: Pick<Hono, 'fetch'>, config: ListenConfig, listening: Listening): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const serverOptions = {
      headersTimeout: config.headersTimeout,
      // Counts only receiving the request: Node stops the clock once the body is in, so a render that
      // takes up to --timeout to answer is not cut (test/server-edge.test.ts checks it).
      requestTimeout: config.requestTimeout,
      // Node looks for expired requests only this often (30 s by default), so short timeouts need a shorter look.
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(config.headersTimeout / 4))),
      // Counts each answer's bytes for the access log (see access-log.ts).
      ServerResponse: CountedResponse,
    };
    const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host, serverOptions }, () => {
      const { address, port } = server.address() as AddressInfo;
      listening.address = { address, port };
      resolve(server);
    });
    server.maxConnections = config.maxConnections;
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'EADDRINUSE'
          ? 'the port is in use'
          : error.code === 'EACCES'
            ? 'permission denied'
            : error.message;
      reject(
        new PdfRenderError('USAGE', `cannot listen on ${bracketed(config.host)}:${config.port}: ${why}`, {
          cause: error,
        }),
      );
    });
  });
}
