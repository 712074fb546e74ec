/**
 * The Chromium switches every engine launch adds to the common ones (launch.ts), in one place, so
 * that the CLI's early start (cli/early-start.ts) spawns exactly the browser the engine would
 * launch; a browser started with other switches is not taken, and a second one is launched.
 */
import { egressProxyFlags } from '../../network/proxy-port.js';

/**
 * The engine's own switches for a browser whose traffic goes through the egress proxy at `proxyUrl`;
 * with `oneCaller` (EngineOptions.oneCaller), the network service in the browser process and the
 * profile in memory.
 */
export function engineBrowserFlags(proxyUrl: string, { oneCaller = false } = {}): string[] {
  return [
    ...(oneCaller
      ? [
          '--enable-features=NetworkServiceInProcess2',
          // Documents render in browser contexts of their own, which Chromium keeps in memory
          // anyway; with this beside --user-data-dir the headless shell keeps its default profile
          // in memory too, so it creates none of the ~25 databases and caches (Local Storage,
          // shared_proto_db, Code Cache...) that profile starts with on disk, for pdfrender to
          // remove at exit (a cold letter: 381 -> 365 ms of CPU, 15 alternating runs). Full Chrome
          // keeps its default profile on disk as before. The server's browsers are left as they
          // are: they start once per thousands of documents.
          '--incognito',
        ]
      : []),
    // Pages run animation frames only when asked (frame-gate.ts); Chromium takes that ask only with this switch.
    '--run-all-compositor-stages-before-draw',
    // Chromium logs every console message of every document to its stderr (which pdfrender reads and
    // drops), formatting each in the browser process: four 256 MB strings kept it busy for seconds,
    // past the watchdog's ping, and twice crashed it (issue 27 §3). Only fatal messages are logged;
    // --log-level is read only beside --enable-logging.
    '--enable-logging=stderr',
    '--log-level=3',
    ...egressProxyFlags(proxyUrl),
  ];
}
