/**
 * Watches a running server's data dir. Its database file and files folder must stay the ones it
 * opened (same device and inode: an open database deleted or replaced under the server would go on
 * taking writes into a file nobody will read again), writable, and with room. Looked at every
 * second, after every write that acknowledges something (confirm), and whenever a write fails with
 * a storage error (report). While at fault, work that needs storage is refused (507 STORAGE_FULL,
 * 503 STORAGE_UNAVAILABLE), /readyz says why, and the async workers take no jobs. A full disk clears
 * by itself once space is back; a deleted or replaced data dir only if the very same files come back
 * (a remount), else it needs a restart, which opens what is there then. The same monitor watches
 * a shared storage (PostgreSQL, S3) through its own StorageLooks (shared-storage-looks.ts).
 */
import { statSync } from 'node:fs';
import { access, constants, stat, statfs } from 'node:fs/promises';
import type { PdfRenderError } from '../../errors.js';
import type { EventLog } from '../../event-log.js';
import { describeErrno } from '../data-dir.js';
import { storageError } from '../storage-errors.js';

export interface StorageFault {
  code: 'STORAGE_FULL' | 'STORAGE_UNAVAILABLE';
  /** What is wrong, naming the file inside the data dir (for /readyz and the log). */
  reason: string;
}

export interface StorageHealth {
  /** The fault as last seen, or null while the storage is fine. */
  current(): StorageFault | null;
  /** Throw the current fault as its PdfRenderError: before work that needs storage. */
  require(): void;
  /** Look now; resolves with the fault, or null. */
  check(): Promise<StorageFault | null>;
  /**
   * Look now and throw if the data dir is no longer the one written to (deleted, replaced): after a
   * write, before acknowledging it, so nothing kept only in a deleted database is acknowledged. A full
   * disk does not throw here: what was written is kept.
   */
  confirm(): Promise<void>;
  /** A store call failed with this storage error; `bytes` is the size of what could not be written, when known. */
  report(error: PdfRenderError, bytes?: number): void;
  /** Stop looking every second. */
  stop(): void;
}

/** Below this much free space the data dir counts as full: the WAL and a PDF need room to grow. */
const minFree = 1024 * 1024;
/** The log says at most this often that writes met another process's lock. */
const busyLogEveryMs = 30_000;

/** How one kind of storage is looked at; storageMonitor keeps the state, the log and the timer. */
export interface StorageLooks {
  /** Where the storage is, for the log ("data dir /srv/pdfrender", "the database and S3 bucket ..."). */
  where: string;
  /** How an unavailable storage comes back, for the log. */
  recovery: string;
  /** A storage shared by instances (a database server, a bucket), so refusals do not speak of a data folder. */
  shared?: boolean;
  /** Look at everything: whether it is there and usable, and (if it can tell) whether `needBytes` are free. */
  look(needBytes: number): Promise<StorageFault | null>;
  /** The quick look after a write and before acknowledging it: is what was written where it will be read? */
  confirm(): Promise<StorageFault | null>;
}

/** A path of the data dir as it was when the server opened it: the same file there later, or one put in its place. */
interface Watched {
  path: string;
  /** Its name in the data dir, as /readyz says it. */
  label: string;
  dev: number;
  ino: number;
}

/** The looks at a data dir: `dbPath` and `filesDir` (both existing) still the ones opened, writable, with room. */
export function dataDirLooks(options: { dataDir: string; dbPath: string; filesDir: string }): StorageLooks {
  const watched: Watched[] = [
    { path: options.dbPath, label: 'pdfrender.db' },
    { path: options.filesDir, label: 'files/' },
  ].map((entry) => {
    const { dev, ino } = statSync(entry.path);
    return { ...entry, dev, ino };
  });

  // The paths still lead to the files this server opened (both looked at together: one round trip).
  const identity = async (): Promise<StorageFault | null> => {
    const faults = await Promise.all(
      watched.map(async (entry): Promise<StorageFault | null> => {
        try {
          const now = await stat(entry.path);
          return now.dev === entry.dev && now.ino === entry.ino
            ? null
            : {
                code: 'STORAGE_UNAVAILABLE',
                reason: `${entry.label} was replaced: it is not the one this server opened`,
              };
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          return {
            code: 'STORAGE_UNAVAILABLE',
            reason:
              code === 'ENOENT' || code === 'ENOTDIR'
                ? `${entry.label} was deleted`
                : `${entry.label} cannot be read: ${describeErrno(error)}`,
          };
        }
      }),
    );
    return faults.find((fault) => fault !== null) ?? null;
  };
  // ... and they are writable: root passes permission checks, but not a read-only mount.
  const writable = async (): Promise<StorageFault | null> => {
    for (const entry of watched) {
      const refused = await access(entry.path, constants.W_OK).then(
        () => null,
        (error: unknown) => error,
      );
      if (refused)
        return { code: 'STORAGE_UNAVAILABLE', reason: `${entry.label} is not writable: ${describeErrno(refused)}` };
    }
    return null;
  };
  const unreadable = (error: unknown): StorageFault => ({
    code: 'STORAGE_UNAVAILABLE',
    reason: `the data dir cannot be checked: ${describeErrno(error)}`,
  });

  return {
    where: `data dir ${options.dataDir}`,
    recovery: 'until it is back (a deleted or replaced data dir needs a restart)',
    async look(needBytes) {
      const unavailable = (await identity()) ?? (await writable());
      if (unavailable) return unavailable;
      const space = await statfs(options.filesDir).catch(() => undefined);
      if (!space) return null;
      const free = space.bavail * space.bsize;
      return free >= needBytes
        ? null
        : {
            code: 'STORAGE_FULL',
            reason: `the data dir's file system has ${kib(free)} free, less than the ${kib(needBytes)} it needs`,
          };
    },
    // After a write that landed: only whether it landed in the files this server reads. Free space
    // and writability are the timer's to see; a write just made says enough of them.
    confirm: () => identity().catch(unreadable),
  };
}

/**
 * The health of a storage seen through `looks`: looked at every second, after acknowledged writes
 * (confirm) and whenever a write fails with a storage error (report); logged when it turns faulty,
 * changes fault or recovers.
 */
export function storageMonitor(looks: StorageLooks, events: EventLog): StorageHealth {
  let fault: StorageFault | null = null;
  /** A write failed for want of room: clear only once twice its size (and the floor) is free, so one large PDF cannot make it flap. */
  let fullNeeds: number | null = null;
  let running: Promise<StorageFault | null> | undefined;
  let lastBusyLog = -Infinity;

  // A new reason for the same fault is kept quietly.
  const set = (next: StorageFault | null) => {
    const changed = next?.code !== fault?.code;
    if (!changed) {
      fault = next;
      return;
    }
    if (next) {
      const refusal =
        next.code === 'STORAGE_FULL'
          ? '507 STORAGE_FULL until space is freed'
          : `503 STORAGE_UNAVAILABLE ${looks.recovery}`;
      events({
        level: 'error',
        message: `storage ${next.code === 'STORAGE_FULL' ? 'full' : 'unavailable'}: ${next.reason} (${looks.where}); renders, async jobs and webhook changes get ${refusal}; queued jobs wait`,
        code: next.code,
      });
    } else if (fault) {
      events({ level: 'info', message: `storage usable again (it was: ${fault.reason}); queued jobs go on` });
    }
    fault = next;
  };

  const look = async (): Promise<StorageFault | null> => {
    const next = await looks.look(Math.max(minFree, fullNeeds ?? 0));
    if (next === null) fullNeeds = null;
    return next;
  };

  const check = () =>
    (running ??= look()
      .catch((error: unknown): StorageFault => ({
        code: 'STORAGE_UNAVAILABLE',
        reason: `the storage cannot be checked: ${describeErrno(error)}`,
      }))
      .then((next) => {
        set(next);
        return next;
      })
      .finally(() => (running = undefined)));

  const timer = setInterval(() => void check(), 1_000);
  timer.unref();

  return {
    current: () => fault,
    require() {
      if (fault) throw storageError(fault.code, undefined, looks.shared);
    },
    check,
    async confirm() {
      // A look of its own, begun after the write: one already under way may have begun before it.
      const unavailable = await looks.confirm();
      if (!unavailable) return;
      set(unavailable);
      throw storageError(unavailable.code, undefined, looks.shared);
    },
    report(error, bytes = 0) {
      if (error.code === 'DATABASE_BUSY') {
        // Not a fault of the storage: the writes that waited too long were refused (503); say so now and then.
        if (performance.now() - lastBusyLog >= busyLogEveryMs) {
          lastBusyLog = performance.now();
          events({
            level: 'warn',
            message:
              'the database is locked by another process: writes wait for it, up to --busy-timeout, then answer 503 DATABASE_BUSY',
            code: error.code,
          });
        }
        return;
      }
      if (error.code === 'STORAGE_FULL') {
        fullNeeds = Math.max(fullNeeds ?? 0, minFree, 2 * bytes);
        set({
          code: 'STORAGE_FULL',
          reason: `a write${bytes > 0 ? ` of ${kib(bytes)}` : ''} failed: ${describeErrno(error.cause)}`,
        });
      } else {
        set({ code: 'STORAGE_UNAVAILABLE', reason: `a write failed: ${describeErrno(error.cause)}` });
      }
      // The look decides from here: it clears a fault the storage no longer shows.
      void check();
    },
    stop: () => clearInterval(timer),
  };
}

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;
