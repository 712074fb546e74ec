/** A render that failed because its whole browser went away (crash, kill, or killed as hung), with why as the cause. */
export class BrowserGone extends Error {
  constructor(cause: unknown) {
    super('the browser went away', { cause });
  }
}
