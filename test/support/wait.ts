/** Waiting on a state the code exposes, not on time. */

/**
 * Poll `read` until it gives a value (anything but undefined or false) and answer it; throw, naming
 * `what`, once `timeoutMs` has passed.
 */
export async function until<T>(
  read: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
