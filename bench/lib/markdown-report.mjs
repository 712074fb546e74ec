/**
 * The run's figures as markdown tables for stdout (and for pasting into the README); latest.json
 * holds the same figures and every individual run.
 */
import { batchCurveSection, pagesCurveSection } from './curve-report.mjs';
import { mb, millis, seconds, table } from './markdown-table.mjs';
import { median, medianBy } from './stats.mjs';

function singleSection(singleDocument) {
  const rows = [];
  const notes = [];
  for (const [doc, tools] of Object.entries(singleDocument)) {
    const chromium = tools['chromium --print-to-pdf']?.medianMs;
    for (const [tool, r] of Object.entries(tools)) {
      if (r.skipped) notes.push(`${tool}: skipped, ${r.skipped}`);
      else if (r.error) rows.push([doc, tool, 'failed', '-', '-', '-', '-']);
      else {
        const wrong = r.pages !== r.pagesExpected;
        if (wrong)
          notes.push(
            `${tool} printed ${r.pages} pages of the ${doc}, not ${r.pagesExpected}: its time is for other output`,
          );
        rows.push([
          doc,
          tool,
          seconds(r.medianMs),
          chromium ? `${(r.medianMs / chromium).toFixed(2)} x` : '-',
          seconds(r.cpuMs),
          mb(r.peakRssKb),
          wrong ? `${r.pages} (not ${r.pagesExpected})` : String(r.pages),
        ]);
      }
    }
  }
  const errors = Object.entries(singleDocument).flatMap(([doc, tools]) =>
    Object.entries(tools)
      .filter(([, r]) => r.error)
      .map(([tool, r]) => `${tool} on ${doc} failed: ${r.error}`),
  );
  return {
    text: table(
      ['document', 'tool', 'median wall time', 'vs chromium --print-to-pdf', 'CPU, whole tree', 'peak RSS', 'pages'],
      rows,
    ),
    notes: [...new Set(notes), ...errors],
  };
}

function batchSection(batch) {
  const ours = batch.cases.pdfrender?.docsPerSecond;
  const rows = Object.entries(batch.cases).map(([name, r]) =>
    r.error
      ? [name, 'failed', '-', '-', '-', '-', '-', '-']
      : [
          name,
          seconds(r.medianMs),
          r.docsPerSecond.toFixed(1),
          millis(r.cpuMsPerDoc),
          ours ? `${(ours / r.docsPerSecond).toFixed(2)} x` : '-',
          mb(r.peakRssKb),
          r.bytesPerDoc ? `${(r.bytesPerDoc / 1000).toFixed(1)} kB` : '-',
          String(r.runs.length),
        ],
  );
  const notes = Object.entries(batch.cases)
    .filter(([, r]) => r.error)
    .map(([name, r]) => `${name} failed: ${r.error}`);
  // What tagging (the default) costs pdfrender, in time and size, in this run.
  const tagged = batch.cases.pdfrender;
  const untagged = batch.cases['pdfrender --no-tagged --no-outline'];
  if (tagged?.medianMs && untagged?.medianMs)
    notes.push(
      `tagging and the outline (pdfrender's default) cost ${(((tagged.medianMs - untagged.medianMs) / batch.docs) * batch.concurrency).toFixed(1)} ms of wall time per document per page (${(tagged.medianMs / untagged.medianMs).toFixed(2)} x the untagged time) and ${(tagged.bytesPerDoc / untagged.bytesPerDoc).toFixed(2)} x the size (${(tagged.bytesPerDoc / 1000).toFixed(1)} against ${(untagged.bytesPerDoc / 1000).toFixed(1)} kB) for ${batch.document === 'report' ? 'the 50-page report' : 'the invoice'}`,
    );
  const archival = batch.cases['pdfrender --pdfa PDF/A-3b'];
  if (tagged?.medianMs && archival?.medianMs)
    notes.push(
      `PDF/A-3b (a full parse and rewrite of the PDF with pdf-lib after the print) costs ${(((archival.medianMs - tagged.medianMs) / batch.docs) * batch.concurrency).toFixed(1)} ms of wall time per document per page over the default (${(archival.medianMs / tagged.medianMs).toFixed(2)} x its time) and ${(archival.bytesPerDoc / tagged.bytesPerDoc).toFixed(2)} x its size`,
    );
  const report = batch.cases.pdfrender?.reportMsPerDoc;
  if (report !== undefined)
    notes.push(
      `pdfrender's rows are with the preflight report on (as every render is): its checks took ${report.toFixed(1)} ms per document on average, of ${((batch.cases.pdfrender.medianMs / batch.docs) * batch.concurrency).toFixed(1)} ms of wall time per document per page`,
    );
  return {
    text: table(
      [
        'case',
        'median wall time',
        'docs/s',
        'CPU per doc (tree)',
        'pdfrender throughput vs this',
        'peak RSS',
        'PDF size',
        'runs',
      ],
      rows,
    ),
    notes,
  };
}

function serverSection(server) {
  // CPU per document of the server's own process and of its Chromium, where measured.
  const cpu = (r) =>
    r.cpuMsPerDoc ? `${r.cpuMsPerDoc.pdfrender.toFixed(1)} + ${r.cpuMsPerDoc.chromium.toFixed(1)} ms` : '-';
  const syncRow = (label, s) => [
    label,
    String(s.requests),
    millis(s.p50),
    millis(s.p95),
    millis(s.p99),
    s.perSecond.toFixed(1),
    String(s.errors),
    cpu(s),
    mb(s.peakRssKb),
  ];
  const rows = server.sync.map((s) =>
    syncRow(`render-sync, ${s.connections} connection${s.connections > 1 ? 's' : ''}`, s),
  );
  const versus = server.asyncVsSync;
  const inRounds = versus ? ` (median of ${versus.rounds} rounds, alternating)` : '';
  if (versus)
    rows.push(
      syncRow(
        `render-sync, ${versus.connections} connections${inRounds}`,
        medianBy(versus.sync, (run) => run.perSecond),
      ),
    );
  const a = server.async;
  if (a)
    rows.push([
      `render-async, first enqueue to last webhook${inRounds}`,
      String(a.jobs),
      '-',
      '-',
      '-',
      a.perSecond.toFixed(1),
      String(a.refused + a.failed),
      cpu(a),
      mb(a.peakRssKb),
    ]);
  rows.push([
    'raw reused-page loop, per document at concurrency 1',
    String(server.rawSamples.length),
    millis(server.rawPerDocMs),
    '-',
    '-',
    (1000 / server.rawPerDocMs).toFixed(1),
    '-',
    '-',
    '-',
  ]);
  return table(
    ['case', 'requests', 'p50', 'p95', 'p99', 'per second', 'errors', 'CPU per doc (pdfrender + Chromium)', 'peak RSS'],
    rows,
  );
}

function observabilitySection(o) {
  const row = (label, runs) => {
    const perSecond = median(runs.map((r) => r.perSecond));
    return [
      label,
      perSecond.toFixed(1),
      millis(median(runs.map((r) => r.p50))),
      `${median(runs.map((r) => r.cpuMsPerDoc.pdfrender)).toFixed(1)} + ${median(runs.map((r) => r.cpuMsPerDoc.chromium)).toFixed(1)} ms`,
      runs.map((r) => r.perSecond.toFixed(1)).join(', '),
    ];
  };
  return table(
    ['server', 'per second (median)', 'p50', 'CPU per doc (pdfrender + Chromium)', 'each round'],
    [
      row('metrics and traces off', o.off),
      row(
        `metrics scraped every second (${o.scrapes} scrapes), traces exported (${Math.round(o.exportedBytes / 1024)} KB)`,
        o.on,
      ),
    ],
  );
}

function memorySection(memory) {
  const row = (n, m) => [String(n), mb(m.rssKb), mb(m.pssKb), String(m.processes)];
  return table(
    ['after renders', 'RSS (tree)', 'PSS (tree)', 'processes'],
    [row(memory.early, memory.atEarly), row(memory.late, memory.atLate)],
  );
}

/** The store's ceiling per backend and instance count, one instance's render throughput, and what the two say together. */
function scaleSection(scale, cores) {
  const one = (backend) =>
    Object.values(scale.store).find((s) => s.backend === backend && s.instances === 1)?.perSecond;
  const lock = (l) => (l ? `${(l.held * 100).toFixed(0)}% held, ${l.waiting.toFixed(1)} waiting` : '-');
  const rows = Object.entries(scale.store).map(([name, s]) =>
    s.error && !s.perSecond
      ? [name, 'failed', '-', '-', '-']
      : [
          name,
          s.perSecond.toFixed(0),
          one(s.backend) ? `${(s.perSecond / one(s.backend)).toFixed(2)} x` : '-',
          lock(s.enqueueLock),
          String(s.runs.length),
        ],
  );
  const r = scale.render;
  const renderName = 'one `pdfrender serve --database`, render-async, tiny documents';
  const renderRow = r.error
    ? [renderName, 'failed', '-', '-', '-']
    : [renderName, r.perSecond.toFixed(1), '-', '-', `1 (${r.jobs} jobs, ${r.refused + r.failed} refused or failed)`];
  const text = table(['case', 'jobs/s', 'vs 1 instance', 'enqueue lock', 'runs'], [...rows, renderRow]);
  const carried = scale.carried
    ? `Instances one PostgreSQL carries ~= store ceiling / one instance's render throughput = ${scale.ceiling.toFixed(0)} / ${r.perSecond.toFixed(1)} jobs/s ~= ${Math.floor(scale.carried)} instances rendering tiny documents (more for heavier ones: each takes longer to render and the same store work).`
    : 'Instances one PostgreSQL carries: not measured (a case above failed).';
  const notes = [
    `Store alone: ${scale.loops} worker loops and ${scale.producers} producers per simulated instance (a worker thread with its own connections each), every job enqueued, claimed, its 8 KB PDF saved (bytes and row), completed with its webhook delivery, and the delivery claimed and recorded as sent; no Chromium, no HTTP. Figures are medians; each run has a fresh database.`,
    'Enqueue lock: the one advisory lock every enqueue takes on PostgreSQL, so that dedupe and the queue bounds see every enqueue of every instance before them; the share of samples of pg_locks (every 10 ms) in which it was held, and the mean number of sessions waiting for it. It is taken inside one database function (one round trip per enqueue), so it is held only while the server runs it; held most of the time, with sessions waiting, it would be the ceiling.',
    'The PostgreSQL cluster runs on this machine, beside the simulated instances and the bench: on a database server of its own the ceiling is higher, so the instance count above is a floor.',
    ...Object.entries(scale.store)
      .filter(([, s]) => s.error)
      .map(([name, s]) => `${name} failed: ${s.error}`),
    ...(r.error ? [`The render case failed: ${r.error}`] : []),
  ];
  if (cores <= 2) {
    notes.push(
      `This machine has ${cores} cores: instances on it share them, so rendering throughput cannot grow with instances here, and no several-instance render figure is given; rendering grows with machines, each bringing its own cores, up to the store ceiling above. The simulated instances share them too, with PostgreSQL and the bench itself, so the store figures stop growing with instances here once the cores are busy: what they show is that more instances do not make the shared store slower per job, not how far it grows on machines of their own.`,
    );
  }
  return { text: `${text}\n\n${carried}`, notes };
}

/** The whole report: machine line, one table per case that ran, the budget, notes. */
export function markdownReport(results) {
  const m = results.machine;
  const out = [
    `pdfrender bench${results.quick ? ' (--quick)' : ''}: ${m.cores} cores (${m.cpu}), ${m.memoryGb} GB, ${m.chromium}, Node ${m.node}, ${m.os}, commit ${m.commit}`,
  ];
  const notes = [];
  if (results.singleDocument) {
    const s = singleSection(results.singleDocument);
    out.push(`\n### Single document, cold, whole process (median of ${results.options.singleRounds})\n`, s.text);
    notes.push(...s.notes);
  }
  const batches = [
    [results.batch, 'invoices'],
    [results.scriptBatch, 'invoices that run script'],
    [results.reportBatch, 'copies of the 50-page report'],
  ];
  for (const [batch, what] of batches.filter(([batch]) => batch)) {
    const b = batchSection(batch);
    out.push(`\n### Batch: ${batch.docs} ${what}, whole process, concurrency ${batch.concurrency}\n`, b.text);
    notes.push(...b.notes);
  }
  if (results.server)
    out.push(
      '\n### Server: the invoice through pdfrender serve on loopback (autocannon)\n',
      serverSection(results.server),
    );
  if (results.observability)
    out.push(
      `\n### Metrics and traces: render-sync, ${results.observability.requests} requests over ${results.observability.connections} connections (alternating rounds of two servers)\n`,
      observabilitySection(results.observability),
    );
  if (results.memory)
    out.push(
      `\n### Memory: pdfrender serve and its Chromium, at rest after render-sync load (${results.memory.connections} connections)\n`,
      memorySection(results.memory),
    );
  if (results.scaleOut) {
    const s = scaleSection(results.scaleOut, m.cores);
    out.push(
      `\n### Scale-out: one PostgreSQL shared by several instances (store alone: ${results.scaleOut.jobs} async jobs per run)\n`,
      s.text,
    );
    notes.push(...s.notes);
  }
  if (results.pagesCurve) {
    const s = pagesCurveSection(results.pagesCurve);
    out.push(
      `\n### Pages curve: cold, whole process, one run at a time (median of ${results.pagesCurve.rounds} up to 100 pages, 1 above)\n`,
      s.text,
    );
    notes.push(...s.notes);
  }
  if (results.batchCurve) {
    const s = batchCurveSection(results.batchCurve);
    out.push(
      `\n### Batch-size curve: invoices, whole process, concurrency ${results.batchCurve.concurrency}\n`,
      s.text,
    );
    notes.push(...s.notes);
  }
  out.push(
    '\n### Budget\n',
    table(
      ['budget', 'measured', 'result'],
      results.budget.map((b) => [b.budget, b.measured, b.result]),
    ),
  );
  notes.push(
    'Peak RSS: the highest sum of VmRSS over the measured process and all its descendants, sampled every 50 ms (median over runs); pages shared between processes count once per process, so it over-counts, alike for every tool.',
  );
  out.push(`\n${notes.map((n) => `- ${n}`).join('\n')}`);
  return out.join('\n');
}
