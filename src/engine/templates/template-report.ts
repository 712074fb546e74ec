/**
 * What a request's header and footer could not have, collected while they are inlined: each URL
 * once, blocked (the network policy or the file rule refused it) or failed (it did not load, or
 * cannot work in a template), with what referred to it and from where, for the warnings.
 */
// Capped as a page's report is, so a template that names a million fonts cannot grow it without bound.
import { cappedUrl, maxIssues, type NetworkReport, type ResourceIssue } from '../network-report.js';

/** Where a reference was found: a template (its index) or a fetched style sheet (its URL). */
export type Origin = number | string;

/** A URL left out, what it was and where it was found. */
export interface Recorded {
  issue: ResourceIssue;
  what: string;
  origins: Set<Origin>;
}

/** The issues of one request's templates. */
export class TemplateReport {
  private readonly entries = new Map<string, Recorded & { list: keyof NetworkReport }>();
  private readonly counts = { blocked: 0, failed: 0 };

  /** Record that `issue.url` (a `what`, found at `origin`) was left out; a URL already recorded only gains the origin. */
  add(list: keyof NetworkReport, issue: ResourceIssue, what: string, origin: Origin): void {
    const known = this.entries.get(issue.url);
    if (known) return void known.origins.add(origin);
    if (this.counts[list] >= maxIssues) return;
    this.counts[list] += 1;
    this.entries.set(issue.url, {
      list,
      issue: { ...issue, url: cappedUrl(issue.url) },
      what,
      origins: new Set([origin]),
    });
  }

  /** Note more places a recorded URL was found at; nothing for a URL not recorded. */
  alsoFrom(url: string, origins: Iterable<Origin>): void {
    for (const origin of origins) this.entries.get(url)?.origins.add(origin);
  }

  /** The blocked and failed lists, in the order found. */
  network(): NetworkReport {
    const values = [...this.entries.values()];
    return {
      blocked: values.filter((entry) => entry.list === 'blocked').map((entry) => entry.issue),
      failed: values.filter((entry) => entry.list === 'failed').map((entry) => entry.issue),
    };
  }

  /** The failed URLs with what they were and where they were found. */
  failures(): Recorded[] {
    return [...this.entries.values()].filter((entry) => entry.list === 'failed');
  }
}
