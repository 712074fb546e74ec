/** Racing work against an abort signal or a timer, without leaving listeners or timers behind. */

/** Race `work` against `signal`: rejects with the signal's reason as soon as it aborts. */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Race `work` against promises that live far longer and mostly never settle (a page's crash, its
 * browser's end). Promise.race would leave a reaction on each of them for every race, holding the
 * race's own promise and so its value (a render's whole PDF) until the page or browser went: about
 * one PDF per render, up to a thousand renders a page. Here what they hold after `work` settles is a
 * small closure over an emptied holder, not the value.
 */
export function raceUntil<T>(work: Promise<T>, longLived: readonly Promise<never>[]): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const holder: Holder = { reject };
    for (const ending of longLived) ending.catch(forwardTo(holder));
    work.then(
      (value) => {
        holder.reject = undefined;
        resolve(value);
      },
      (error: unknown) => {
        holder.reject = undefined;
        reject(error);
      },
    );
  });
}

interface Holder {
  reject?: (error: unknown) => void;
}

// Made out here, so that its closure holds the holder alone: a closure made inside raceUntil's
// executor would share its context, and with it resolve, reject and the value they lead to.
const forwardTo = (holder: Holder) => (error: unknown) => holder.reject?.(error);

/** `work`'s value, or `fallback` if it has not settled within `ms`; the timer never holds the process open. */
export async function valueWithin<T>(work: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(resolve, ms, fallback);
    timer.unref();
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
