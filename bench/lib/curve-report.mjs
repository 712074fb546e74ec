/** The curves of the bench (pages and batch size) as markdown tables, for markdown-report.mjs. */
import { mb, millis, seconds, size, table } from './markdown-table.mjs';

/**
 * What tagging (pdfrender's default, with an outline) costs in CPU and size: pdfrender's two rows of
 * `cases`, and the rival's `untagged` and `tagged` rows beside them; `cpuKey` names the CPU figure.
 */
function taggingCost(cases, cpuKey, untagged, tagged) {
  const size = (r) => r.bytes ?? r.bytesPerDoc;
  const cost = (on, off) =>
    on?.[cpuKey] && off?.[cpuKey]
      ? `+${millis(on[cpuKey] - off[cpuKey])} of CPU (${(on[cpuKey] / off[cpuKey]).toFixed(2)} x)${size(on) && size(off) ? `, ${(size(on) / size(off)).toFixed(2)} x the size` : ''}`
      : 'not measured';
  return `tagging costs pdfrender ${cost(cases.pdfrender, cases['pdfrender --no-tagged --no-outline'])}; ${tagged}, against ${untagged}: ${cost(cases[tagged], cases[untagged])}`;
}

/** The pages curve: one table per document, a row per page count and tool; a failure is a row with its reason. */
export function pagesCurveSection(curve) {
  const text = [];
  const notes = [];
  for (const [doc, counts] of Object.entries(curve.documents)) {
    const rows = [];
    for (const [count, tools] of Object.entries(counts)) {
      // Like with like: an untagged row against pdfrender untagged, the others against its default (tagged).
      const ours = (tool) =>
        /no-tagged|disable-pdf-tagging/.test(tool)
          ? tools['pdfrender --no-tagged --no-outline']?.cpuMs
          : tools.pdfrender?.cpuMs;
      for (const [tool, r] of Object.entries(tools)) {
        if (r.skipped) rows.push([count, tool, `skipped: ${r.skipped}`, '-', '-', '-', '-', '-', '-']);
        else if (r.error) {
          rows.push([count, tool, 'FAILED', seconds(r.cpuMs), '-', mb(r.peakRssKb), '-', '-', '-']);
          notes.push(`${doc}, ${count} pages, ${tool} failed after ${seconds(r.ms)}: ${r.error}`);
        } else
          rows.push([
            count,
            tool,
            seconds(r.medianMs),
            seconds(r.cpuMs),
            ours(tool) && r.cpuMs ? `${(ours(tool) / r.cpuMs).toFixed(2)} x` : '-',
            mb(r.peakRssKb),
            size(r.bytes),
            String(r.pages),
            String(r.runs.length),
          ]);
      }
    }
    // What tagging costs at the largest page count both pdfrender rows reached.
    const largest = Object.entries(counts)
      .reverse()
      .find(([, tools]) => tools.pdfrender?.cpuMs && tools['pdfrender --no-tagged --no-outline']?.cpuMs);
    if (largest)
      notes.push(
        `${doc}, ${largest[0]} pages: ${taggingCost(largest[1], 'cpuMs', 'headless shell --print-to-pdf --disable-pdf-tagging', 'headless shell --print-to-pdf')}`,
      );
    text.push(
      `\n#### ${doc}\n`,
      table(
        [
          'pages',
          'tool',
          'wall (median)',
          'CPU, whole tree',
          'pdfrender CPU vs this, printing alike',
          'peak RSS',
          'PDF size',
          'PDF pages',
          'runs',
        ],
        rows,
      ),
    );
  }
  notes.push(
    `Pages curve: each run alone, cold, whole process; CPU is every process of the tree (Node and all of Chromium's, read from a cgroup of the run's own); a run is killed at ${curve.timeoutMs / 1000} s or ${(curve.maxRssKb / 2 ** 20).toFixed(1)} GB of RSS; a tool that failed at a page count is not run on larger ones of that document. The shell's --print-to-pdf and the puppeteer-core script print tagged PDFs by default, as pdfrender does.`,
  );
  return { text: text.join('\n'), notes };
}

/** The batch-size curve: per-document CPU and wall at each size, pdfrender against the raw loop printing alike. */
export function batchCurveSection(curve) {
  const like = {
    pdfrender: 'raw reused-page loop, tagged',
    'pdfrender --no-tagged --no-outline': 'raw reused-page loop (reference)',
  };
  const rows = [];
  const notes = [];
  for (const [docs, batch] of Object.entries(curve.batches)) {
    notes.push(
      `batch of ${docs}: ${taggingCost(batch.cases, 'cpuMsPerDoc', 'raw reused-page loop (reference)', 'raw reused-page loop, tagged')}`,
    );
    for (const [name, r] of Object.entries(batch.cases)) {
      if (r.error) {
        rows.push([docs, name, 'FAILED', '-', '-', '-', '-', '-']);
        notes.push(`batch of ${docs}, ${name} failed: ${r.error}`);
        continue;
      }
      const raw = batch.cases[like[name]];
      rows.push([
        docs,
        name,
        millis(r.cpuMsPerDoc),
        millis((r.medianMs / batch.docs) * batch.concurrency),
        raw?.cpuMsPerDoc && r.cpuMsPerDoc ? `${(r.cpuMsPerDoc / raw.cpuMsPerDoc).toFixed(2)} x` : '-',
        raw?.docsPerSecond ? `${(r.docsPerSecond / raw.docsPerSecond).toFixed(2)} x` : '-',
        mb(r.peakRssKb),
        String(r.runs.length),
      ]);
    }
  }
  notes.push(
    `Batch curve: CPU per document is the whole tree's CPU (Node and every Chromium process, from a cgroup of the run's own) over the batch; wall per document is the batch's wall time over documents, times the concurrency (${curve.concurrency}); each pdfrender row is held to the raw loop that prints alike (tagged with an outline, or untagged), which starts each page at its first document rather than at the folder's listing.`,
  );
  return {
    text: table(
      [
        'invoices',
        'case',
        'CPU per doc',
        'wall per doc per page',
        'CPU vs raw loop alike',
        'throughput vs raw loop alike',
        'peak RSS',
        'runs',
      ],
      rows,
    ),
    notes,
  };
}
