/**
 * Put the app on its port with the connection bounds of the config: slow headers and slow bodies
 * are cut (Node answers 408 and closes), bodies below the minimum upload rate too, and connections
 * beyond the cap, or beyond their address's, are closed at once.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import type { ServeConfig } from './config.js';
import { PdfRenderError } from '../errors.js';
import { capConnectionsPerAddress } from './edge/connection-cap.js';
import { CountedResponse } from './edge/counted-response.js';
import { noticePerAddress } from './edge/notice-per-address.js';
import { enforceUploadRate } from './edge/upload-rate.js';
import type { AppDeps } from './deps.js';
import { bracketed } from './public-url.js';

type ListenConfig = Pick<
  ServeConfig,
  | 'port'
  | 'host'
  | 'headersTimeout'
  | 'requestTimeout'
  | 'maxConnections'
  | 'maxConnectionsPerAddress'
  | 'minUploadRate'
  | 'uploadGrace'
  | 'trustProxy'
>;

/** Listen on config.host:config.port, record the real address in `deps.listening`, and warn of refused clients in `deps.events`. */
export function listen(
  app: Pick<Hono, 'fetch'>,
  config: ListenConfig,
  deps: Pick<AppDeps, 'listening' | 'events'>,
): Promise<ServerType> {
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
      deps.listening.address = { address, port };
      resolve(server);
    });
    server.maxConnections = config.maxConnections;
    const notice = noticePerAddress(deps.events);
    capConnectionsPerAddress(server, {
      max: config.maxConnectionsPerAddress,
      trustProxy: config.trustProxy,
      refused: (key, open) =>
        notice(
          key,
          `closed connections from ${key} as they opened: it has ${open} open, the most --max-connections-per-address allows`,
        ),
    });
    enforceUploadRate(server, {
      minRate: config.minUploadRate,
      graceMs: config.uploadGrace,
      trustProxy: config.trustProxy,
      cut: (from, received, ms) =>
        notice(
          from,
          `cut a request body from ${from} with 408: ${received} bytes in ${(ms / 1000).toFixed(1)} s, below --min-upload-rate (${config.minUploadRate} bytes/s once --upload-grace, ${config.uploadGrace / 1000} s, is over)`,
        ),
    });
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
