/** The rate-limit window both stores count in: fixed minutes. */

/** Length of one rate-limit window. */
export const windowMs = 60_000;

/** The start of the window `now` falls in. */
export const windowStart = (now: number) => Math.floor(now / windowMs) * windowMs;
