/**
 * The batch-size curve: N invoices through `pdfrender render --out-dir` (its default, tagged with an
 * outline, and untagged) against the raw reused-page loop printing what each prints (tagged with an
 * outline, and untagged), at growing N, with the CPU time of the whole process tree and the wall
 * time per document. Each size is batch.mjs's batch run with those four cases, alternating.
 */
import { batch } from './batch.mjs';

/** The batch sizes of the curve. */
export const curveBatchSizes = [10, 100, 1000, 3000];

/** Rounds for a batch of `docs`: `rounds` for small ones; a batch of thousands takes minutes a run. */
export const roundsFor = (docs, rounds) => (docs <= 100 ? rounds : docs <= 1000 ? Math.min(rounds, 3) : 1);

/**
 * Runs the curve for `sizes` (a subset of curveBatchSizes). Resolves to { sizes, concurrency,
 * batches: { [docs]: batch() result } }; every case's per-document figures are in its cpuMsPerDoc
 * and medianMs / docs.
 */
export async function batchCurve({ root, sizes, concurrency, rounds, work, log }) {
  const batches = {};
  for (const docs of sizes)
    batches[docs] = await batch({
      root,
      docs,
      concurrency,
      rounds: roundsFor(docs, rounds),
      work,
      log,
      modes: ['raw reused-page loop (reference)', 'raw reused-page loop, tagged'],
      variants: ['pdfrender', 'pdfrender --no-tagged --no-outline'],
    });
  return { sizes, concurrency, batches };
}
