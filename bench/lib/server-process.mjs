/**
 * A real `pdfrender serve` on loopback for the server cases, and a local webhook receiver for the
 * async ones. Nothing leaves 127.0.0.1.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';

/** `--database <url>` when one is given (PostgreSQL), else nothing (SQLite in the data dir). */
const databaseFlag = (database) => (database ? ['--database', database] : []);

/**
 * Start `pdfrender serve` on a free port with `dataDir` (and on the PostgreSQL `database` when given),
 * with `flags` and `env` added; the rate limit is raised far above what the bench sends, so every
 * figure is a render, never a 429. Resolves to { url, pid, stop() }.
 */
export async function startServer({ root, dataDir, database, flags = [], env = {} }) {
  const bin = join(root, 'bin/pdfrender.js');
  const args = [
    bin,
    'serve',
    '--port',
    '0',
    '--data-dir',
    dataDir,
    ...databaseFlag(database),
    '--rate-limit',
    '1000000',
    '--allow-private-webhooks',
    '--log-format',
    'json',
    ...flags,
  ];
  const server = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  const closed = new Promise((resolve) => server.on('close', resolve));
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    server.stderr.on('data', (chunk) => {
      // Keep only the start of the log: the access log of thousands of requests is not needed.
      if (stderr.length < 20_000) stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    closed.then((code) => reject(new Error(`pdfrender serve exited ${code} before listening: ${stderr.trim()}`)));
  });
  return {
    url,
    pid: server.pid,
    async stop() {
      server.kill('SIGTERM');
      await closed;
    },
  };
}

/** Register `url` as a webhook endpoint in `dataDir` or `database` (before the server starts, as a user would). */
export function addWebhook({ root, dataDir, database, url }) {
  execFileSync(
    process.execPath,
    [
      join(root, 'bin/pdfrender.js'),
      'webhooks',
      'add',
      url,
      '--data-dir',
      dataDir,
      ...databaseFlag(database),
      '--allow-private-webhooks',
    ],
    { stdio: 'ignore' },
  );
}

/**
 * A webhook receiver on loopback that answers 204 and counts deliveries (and, of those, failed
 * renders). `waitFor(n)` resolves with the time (performance.now()) the n-th delivery arrived.
 */
export async function startWebhookReceiver() {
  let received = 0;
  let failed = 0;
  const waiters = [];
  const settle = (now) => {
    for (const waiter of waiters.filter((w) => w.count <= received)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(now);
    }
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      res.writeHead(204).end();
      received += 1;
      if (!body.includes('"PDF_RENDERED"')) failed += 1;
      settle(performance.now());
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    get received() {
      return received;
    },
    get failed() {
      return failed;
    },
    waitFor(count) {
      const promise = new Promise((resolve) => waiters.push({ count, resolve }));
      settle(performance.now());
      return promise;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
