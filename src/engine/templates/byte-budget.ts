/**
 * A count of bytes one request may hold, taken before the bytes are kept: header and footer
 * images share one, so a template cannot make pdfrender hold more than the budget whatever it
 * references, and the fetch that would pass it stops there.
 */
export class ByteBudget {
  private used = 0;
  /** Set once a take was refused. */
  exceeded = false;

  constructor(readonly limit: number) {}

  /** Take `bytes` if they fit; false (and `exceeded`) when they do not. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) {
      this.exceeded = true;
      return false;
    }
    this.used += bytes;
    return true;
  }

  /** Give back bytes that are no longer held (a fetch that failed). */
  give(bytes: number): void {
    this.used -= bytes;
  }
}
