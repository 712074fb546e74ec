/**
 * The store as the server uses it: every call that writes goes through the store writer
 * (store-writer.ts), so a lock held by another process is waited out without blocking and a storage
 * fault reaches the health monitor. Built in where the backend is opened, not applied at each call
 * site: which calls write is declared here once per method of the contract, and a method added to
 * the contract without being declared is a type error, not a write that forgets to wait.
 */
import type { Store } from './contract.js';
import type { StoreWrite, WriteOptions } from './store-writer.js';

type Part = Exclude<keyof Store, 'ping' | 'close'>;

/** A write goes through the writer; a read is called as it is (WAL readers never meet a lock, and a failed read is not a fault of the storage to report). */
type Kinds<T> = { [Method in keyof T]: 'read' | 'write' };

const kinds: { [P in Part]: Kinds<Store[P]> } = {
  queue: {
    enqueue: 'write',
    claim: 'write',
    heartbeat: 'write',
    complete: 'write',
    fail: 'write',
    release: 'write',
    requeueExpired: 'write',
    get: 'read',
    sweep: 'write',
    overview: 'read',
    failures: 'read',
  },
  deliveries: {
    queueEvent: 'write',
    claim: 'write',
    renew: 'write',
    succeeded: 'write',
    failed: 'write',
    log: 'read',
    hold: 'write',
    abandon: 'write',
    overview: 'read',
  },
  webhooks: {
    add: 'write',
    addOrEnable: 'write',
    enable: 'write',
    rotate: 'write',
    list: 'read',
    any: 'read',
    get: 'read',
    disable: 'write',
    remove: 'write',
    assign: 'write',
  },
  redeliveries: { redeliver: 'write' },
  rateWindows: { hit: 'write', peek: 'read', prune: 'write' },
  fileIndex: { insert: 'write', find: 'read', expired: 'read', remove: 'write', known: 'read' },
};

/** `part` with each of its writes run through `write`. */
function retrying<T extends object>(part: T, kindOf: Kinds<T>, write: StoreWrite, options?: WriteOptions): T {
  const wrapped: Record<string, unknown> = {};
  for (const name of Object.keys(kindOf) as (keyof T & string)[]) {
    const method = (part[name] as (...args: unknown[]) => Promise<unknown>).bind(part);
    wrapped[name] = kindOf[name] === 'write' ? (...args: unknown[]) => write(() => method(...args), options) : method;
  }
  return wrapped as T;
}

/** `store` with every write waiting through `write` (with `options`: another bound than the writer's). */
export function retryingStore(store: Store, write: StoreWrite, options?: WriteOptions): Store {
  const part = <P extends Part>(name: P): Store[P] => retrying(store[name], kinds[name], write, options);
  return {
    queue: part('queue'),
    deliveries: part('deliveries'),
    webhooks: part('webhooks'),
    redeliveries: part('redeliveries'),
    rateWindows: part('rateWindows'),
    fileIndex: part('fileIndex'),
    ping: () => write(() => store.ping(), options),
    close: () => store.close(),
  };
}
