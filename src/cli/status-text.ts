/**
 * `pdfrender status` as text: three blocks (queue, failures, webhooks), one line per priority, code
 * and endpoint, ages as "3 m 12 s". Colour (only where the caller's chalk has a level: a terminal,
 * or --color) marks what wants a look: failures, a disabled endpoint, deliveries given up.
 */
import type { ChalkInstance } from 'chalk';
import { ownerLabel } from '../store/owners.js';
import { humanDuration } from './human-duration.js';
import type { StatusReport } from './status-report.js';

/** The report as lines of text, ending in a newline. */
export function statusText(report: StatusReport, chalk: ChalkInstance): string {
  const { queue, failures, webhooks } = report;
  const lines = [chalk.bold(`queue (at ${new Date(report.at).toISOString()})`)];
  if (queue.byPriority.length === 0) lines.push('  no jobs queued');
  for (const p of queue.byPriority)
    lines.push(
      `  priority ${p.priority}: ${p.queued} queued, ${p.ready} ready, oldest ${humanDuration(p.oldestAgeMs)}`,
    );
  if (queue.byPriority.length > 1)
    lines.push(`  in all: ${queue.queued} queued, ${queue.ready} ready, oldest ${humanDuration(queue.oldestAgeMs!)}`);
  lines.push(`  rendering: ${queue.rendering}`);

  lines.push('', chalk.bold(`failures in the last ${humanDuration(failures.sinceMs)}`));
  if (failures.byCode.length === 0) lines.push('  none');
  for (const f of failures.byCode)
    lines.push(
      `  ${chalk.red(f.code ?? '(no code)')}: ${f.count}, last ${humanDuration(report.at - f.lastAt)} ago${f.lastError ? `: ${f.lastError}` : ''}`,
    );

  lines.push('', chalk.bold('webhook endpoints'));
  if (webhooks.length === 0) lines.push('  none');
  for (const e of webhooks) {
    const state =
      e.disabledAt === null ? 'active' : chalk.yellow(`disabled ${humanDuration(report.at - e.disabledAt)} ago`);
    lines.push(`  ${e.id}  ${e.url}  ${ownerLabel(e.owner)}  ${state}`);
    const pending = e.oldestPendingAgeMs === null ? '' : ` (oldest ${humanDuration(e.oldestPendingAgeMs)})`;
    const held = e.held > 0 ? chalk.yellow(`${e.held} held`) : '0 held';
    const failed = e.failed > 0 ? chalk.red(`${e.failed} failed`) : '0 failed';
    lines.push(`    ${e.pending} pending${pending}, ${held}, ${failed}, ${e.delivered} delivered`);
    if (e.lastDeliveredAt !== null)
      lines.push(`    last delivered ${humanDuration(report.at - e.lastDeliveredAt)} ago`);
    if (e.lastError !== null)
      lines.push(`    last error: ${e.lastStatus === null ? '' : `HTTP ${e.lastStatus}, `}${e.lastError}`);
  }
  return `${lines.join('\n')}\n`;
}
