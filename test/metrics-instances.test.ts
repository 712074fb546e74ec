/**
 * Two instances on one PostgreSQL report the shared queue the same way: the queue gauges come from
 * the store at each scrape, not from what each instance did.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEvent } from '../src/server/api/job-event.js';
import { openStore } from '../src/store/open-store.js';
import { enqueueInput } from './support/enqueue-input.js';
import { tempDir } from './support/files.js';
import { startDeployment, type Deployment } from './support/instances.js';
import { scrapedValue } from './support/prometheus.js';

let deployment: Deployment;

beforeAll(async () => {
  deployment = await startDeployment('metrics', 2, ['--metrics']);
}, 120_000);

afterAll(async () => {
  await deployment?.stop();
});

describe('metrics of the shared queue', () => {
  it('are the same on every instance, whichever queued the jobs', async () => {
    // Three jobs queued an hour ago at priority 3, due only in an hour (a retry's wait), so no worker
    // takes them meanwhile; and one at priority -2, queued as the first, with the same wait.
    const opened = await openStore({ dataDir: await tempDir(), database: deployment.database, eventOf: webhookEvent });
    try {
      const later = Date.now() + 3_600_000;
      for (const priority of [3, 3, 3, -2]) await opened.store.queue.enqueue(enqueueInput({ priority, now: later }));
      await deployment.db.query('UPDATE jobs SET created_at = created_at - 7200000');
    } finally {
      await opened.close();
    }
    for (const { url } of deployment.instances) {
      expect(await scrapedValue(`${url}/metrics`, 'pdfrender_queue_jobs{priority="3"}')).toBe(3);
      expect(await scrapedValue(`${url}/metrics`, 'pdfrender_queue_jobs{priority="-2"}')).toBe(1);
      expect(await scrapedValue(`${url}/metrics`, 'pdfrender_queue_ready_jobs{priority="3"}')).toBe(0);
      expect(await scrapedValue(`${url}/metrics`, 'pdfrender_jobs_rendering')).toBe(0);
      expect(await scrapedValue(`${url}/metrics`, 'pdfrender_store_up')).toBe(1);
      // An hour old by the database's clock, which every instance counts by.
      const age = await scrapedValue(`${url}/metrics`, 'pdfrender_queue_oldest_age_seconds');
      expect(age).toBeGreaterThan(3_590);
      expect(age).toBeLessThan(3_660);
    }
  });
});
