/** The statements of the rate-limit windows (contract.ts RateWindows), one per operation for both stores. */

export const rateWindowStatements = {
  // One atomic upsert: every server on the database counts into the same row.
  hit: `INSERT INTO rate_windows (key, window_start, count) VALUES (:key, :start, 1)
        ON CONFLICT (key, window_start) DO UPDATE SET count = rate_windows.count + 1 RETURNING count`,
  peek: 'SELECT count FROM rate_windows WHERE key = :key AND window_start = :start',
  prune: 'DELETE FROM rate_windows WHERE window_start < :start',
};
