/** Time as the code reads it: passed in, so tests and a shared database can supply their own. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The machine's own clock. */
export const systemClock: Clock = { now: () => Date.now() };
