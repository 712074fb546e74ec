/**
 * `pdfrender status`: the picture an operator wants first, read from the store every instance on a
 * data dir or a database shares: the queue by priority (how deep, how many ready, how old the oldest
 * job, how many rendering), the jobs that failed lately by reason, and each webhook endpoint's
 * deliveries. As text (coloured on a terminal) or, with --json, as one object (docs/operating.md).
 * It changes no job or delivery: no data dir is made where there is none (an older database is
 * migrated, as by `webhooks`), and no key or secret is ever printed.
 */
import { Command } from 'commander';
import { durationField } from '../fields.js';
import { parseNamed } from '../request.js';
import { colorLevel, painter } from './color.js';
import { storeOptions, withCommandStore, type Where } from './command-store.js';
import type { CliIO } from './io.js';
import { statusReport } from './status-report.js';
import { statusText } from './status-text.js';

/** Build the `status` command. */
export function statusCommand(io: CliIO): Command {
  const command = new Command('status')
    .description(
      "show the queue (depth by priority, ready, the oldest job, rendering), recent failures by reason and each webhook endpoint's deliveries, as every instance on the data dir or database shares them",
    )
    .option('--since <duration>', 'list the jobs that failed within this long, e.g. 15m, 24h (default 1h)')
    .option('--json', 'print the status as one JSON object');
  storeOptions(command).action(async (options: Where & { since?: string; json?: boolean }) => {
    const sinceMs = parseNamed(durationField('1h'), options.since ?? '1h', '--since');
    const report = await withCommandStore(io, options, (store, now) => statusReport(store, now, sinceMs));
    if (options.json) return void io.stdout.write(`${JSON.stringify(report)}\n`);
    const flag = command.optsWithGlobals().color as boolean | undefined;
    io.stdout.write(statusText(report, painter(colorLevel(flag, io.env, io.stdoutIsTTY))));
  });
  return command;
}
