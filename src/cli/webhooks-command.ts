/**
 * `pdfrender webhooks add <url> | list | remove <id> | rotate <id> | enable <id> | assign <id> |
 * deliveries | redeliver <jobId>`: manage the endpoints that async renders notify and their
 * deliveries. They live in the data dir's database, so a running server sees changes at once (and
 * sends what a command queued within a second). These are the operator's: they see and change every
 * key's endpoints.
 */
import { Command } from 'commander';
import { resolveSetting, serveSettings } from '../server/config.js';
import { PdfRenderError } from '../errors.js';
import { numberField } from '../fields.js';
import { parseNamed } from '../request.js';
import type { Enabled, Redelivery, Rotation, Store, WebhookEndpoint } from '../store/contract.js';
import { everyOwner, keyOwner, noOwner, ownerLabel } from '../store/owners.js';
import { withoutCredentials } from '../store/webhook-endpoint-rules.js';
import { checkWebhookUrl } from '../webhooks/webhook-policy.js';
import type { CliIO } from './io.js';
import { storeOptions, withCommandStore, type Where } from './command-store.js';

/** Build the `webhooks` command group. */
export function webhooksCommand(io: CliIO): Command {
  /** Open the store; only `add` (`create`) makes a data dir where there is none. */
  const withStore = <T>(options: Where, work: (store: Store, now: number) => Promise<T>, create = false) =>
    withCommandStore(io, options, work, create);
  const withEndpoints = <T>(
    options: Where,
    work: (endpoints: Store['webhooks'], now: number) => Promise<T>,
    create = false,
  ) => withStore(options, (store, now) => work(store.webhooks, now), create);
  const print = (text: string) => io.stdout.write(`${text}\n`);
  const group = new Command('webhooks').description('manage the webhook endpoints notified when async renders finish');
  group
    .command('add <url>')
    .description(
      'add an endpoint; prints its id, its key (the Bearer token of its deliveries) and its signing secret. The URL of a disabled endpoint enables that endpoint again instead (same id, key and secret) and sends the events it held',
    )
    .option('--json', 'print the endpoint as JSON')
    .option('--for-key <key>', forKeyHelp)
    .option('--global', globalHelp)
    .option(
      '--allow-private-webhooks',
      `${serveSettings.allowPrivateWebhooks.schema.description} [env ${serveSettings.allowPrivateWebhooks.env}]`,
    )
    .action(async (url: string, options: Where & Owning & { json?: boolean; allowPrivateWebhooks?: boolean }) => {
      const owner = ownerFrom(options) ?? noOwner;
      const allowPrivate = resolveSetting(serveSettings.allowPrivateWebhooks, options.allowPrivateWebhooks, io.env);
      const checked = await checkWebhookUrl(url, allowPrivate);
      const result = await withEndpoints(options, (endpoints, now) => endpoints.addOrEnable(checked, now, owner), true);
      if (result.created) {
        const { created: _created, ...endpoint } = result;
        return void print(
          options.json
            ? JSON.stringify(endpoint)
            : `id:     ${endpoint.id}\nurl:    ${endpoint.url}\nowner:  ${ownerLabel(endpoint.owner)}\n${credentials(endpoint)}`,
        );
      }
      if (options.json)
        return void print(
          JSON.stringify({
            ...withoutCredentials(result.endpoint),
            owner: result.endpoint.owner,
            reenabled: true,
            released: result.released,
          }),
        );
      print(
        `id:     ${result.endpoint.id}\nurl:    ${result.endpoint.url}\n${enabledLine(result)}; its key and signing secret are unchanged (\`pdfrender webhooks list --show-secrets\` shows them)`,
      );
    });
  group
    .command('list')
    .description('list the endpoints')
    .option('--json', 'print the endpoints as JSON')
    .option('--show-secrets', 'include the keys and signing secrets')
    .option('--for-key <key>', 'only the endpoints of this API key')
    .action(async (options: Where & { json?: boolean; showSecrets?: boolean; forKey?: string }) => {
      const viewer = options.forKey === undefined ? undefined : keyOwner(options.forKey);
      const list = await withEndpoints(options, (endpoints) => endpoints.list(viewer));
      if (options.json) {
        print(
          JSON.stringify(
            list.map((endpoint) =>
              options.showSecrets ? endpoint : { ...withoutCredentials(endpoint), owner: endpoint.owner },
            ),
          ),
        );
      } else if (list.length === 0) {
        print('no webhook endpoints; add one with `pdfrender webhooks add <url>`');
      } else {
        for (const endpoint of list) {
          const held = `${plural(endpoint.held, 'event')} held`;
          const state = endpoint.disabledAt
            ? `disabled ${new Date(endpoint.disabledAt).toISOString()} (the receiver answered 410); ${held}: \`pdfrender webhooks enable ${endpoint.id}\` sends them`
            : 'active';
          const secrets = options.showSecrets ? [endpoint.key, endpoint.secret] : [];
          print([endpoint.id, endpoint.url, ownerLabel(endpoint.owner), state, ...secrets].join('  '));
        }
      }
    });
  group
    .command('remove <id>')
    .description('remove an endpoint')
    .action(async (id: string, options: Where) => {
      const removed = await withEndpoints(options, (endpoints, now) => endpoints.remove(id, now));
      if (!removed) throw noEndpoint(id);
      const unsent =
        removed.unsent === 0
          ? ''
          : `; ${plural(removed.unsent, 'event')} it held or had yet to send will not be sent to it (\`pdfrender webhooks deliveries --failed\` lists their jobs; \`pdfrender webhooks redeliver <jobId>\` sends one to the current endpoints)`;
      print(`removed ${id}${unsent}`);
    });
  group
    .command('enable <id>')
    .description(
      'enable an endpoint that was disabled (its receiver answered 410 Gone) and send the events it held, in the order they happened',
    )
    .action(async (id: string, options: Where) => {
      const enabled = await withEndpoints(options, (endpoints, now) => endpoints.enable(id, now));
      if (!enabled) throw noEndpoint(id);
      print(`${id}: ${enabledLine(enabled)}`);
    });
  group
    .command('rotate <id>')
    .description("replace an endpoint's key, signing secret or both (the default); the next delivery uses the new ones")
    .option('--key', 'replace the key (the Bearer token of its deliveries)')
    .option('--secret', 'replace the signing secret (its receiver must verify with the new one)')
    .option('--json', 'print the endpoint as JSON')
    .action(async (id: string, options: Where & { key?: boolean; secret?: boolean; json?: boolean }) => {
      const both = !options.key && !options.secret;
      const which: Rotation = { key: both || Boolean(options.key), secret: both || Boolean(options.secret) };
      const endpoint = await withEndpoints(options, (endpoints) => endpoints.rotate(id, which));
      if (!endpoint) throw noEndpoint(id);
      print(options.json ? JSON.stringify(endpoint) : `id:     ${endpoint.id}\n${credentials(endpoint, which)}`);
    });
  group
    .command('assign <id>')
    .description(
      "give an endpoint to an API key (it receives that key's jobs' events and the key manages it), make it global (every key's events), or no key's",
    )
    .option('--for-key <key>', forKeyHelp)
    .option('--global', globalHelp)
    .option('--unowned', "no key's: it receives only the events of jobs sent with auth off")
    .action(async (id: string, options: Where & Owning) => {
      const owner = ownerFrom(options);
      if (owner === undefined)
        throw new PdfRenderError('USAGE', 'say whose the endpoint is: --for-key <key>, --global or --unowned');
      const endpoint = await withEndpoints(options, (endpoints) => endpoints.assign(id, owner));
      if (!endpoint) throw noEndpoint(id);
      print(`${id}: ${ownerLabel(endpoint.owner)}`);
    });
  group
    .command('deliveries')
    .description('show the delivery log, newest first')
    .option('--failed', 'only deliveries that gave up')
    // The default in the text, as every other flag's: commander would quote it ("50").
    .option('--limit <n>', 'how many (default 50)')
    .option('--json', 'print the log as JSON')
    .action(async (options: Where & { failed?: boolean; limit?: string; json?: boolean }) => {
      const limit = parseNamed(numberField({ min: 1, integer: true }), options.limit ?? '50', '--limit');
      const entries = await withStore(options, (store) => store.deliveries.log(limit, options.failed === true));
      if (options.json) return void print(JSON.stringify(entries));
      if (entries.length === 0) return void print(options.failed ? 'no failed deliveries' : 'no deliveries yet');
      for (const entry of entries) {
        const last = entry.lastStatus ? `HTTP ${entry.lastStatus}` : (entry.lastError ?? '');
        const next = entry.nextAttemptAt ? `next ${new Date(entry.nextAttemptAt).toISOString()}` : '';
        print(
          [
            new Date(entry.createdAt).toISOString(),
            entry.jobId,
            entry.url ?? `(removed ${entry.endpointId})`,
            entry.status,
            `${entry.attempts} attempt${entry.attempts === 1 ? '' : 's'}`,
            last,
            next,
          ]
            .filter(Boolean)
            .join('  '),
        );
      }
    });
  group
    .command('redeliver <jobId>')
    .description(
      "send a finished job's webhook event again, now, to every active endpoint of the job's API key and every global one, also those that never had it (a running server sends it within a second)",
    )
    .action(async (jobId: string, options: Where) => {
      print(
        redeliveryReport(jobId, await withStore(options, (store, now) => store.redeliveries.redeliver(jobId, now))),
      );
    });
  // Every command finds the store by the same flags (its other flags listed first).
  for (const command of group.commands) storeOptions(command);
  return group;
}

const forKeyHelp =
  "the endpoint is this API key's (one of serve's --api-key): it receives the events of that key's jobs, and that key manages it through /api/webhooks";
const globalHelp = "the endpoint receives every key's jobs' events (no key sees or manages it through /api/webhooks)";

/** Whose an endpoint is to be, as the flags say it. */
interface Owning {
  forKey?: string;
  global?: boolean;
  unowned?: boolean;
}

/** The owner the flags name (store/owners.ts), or undefined when they name none; more than one is a usage error. */
function ownerFrom(options: Owning): string | undefined {
  const named = [
    ...(options.forKey !== undefined ? [keyOwner(options.forKey)] : []),
    ...(options.global ? [everyOwner] : []),
    ...(options.unowned ? [noOwner] : []),
  ];
  if (named.length > 1)
    throw new PdfRenderError('USAGE', '--for-key, --global and --unowned name one owner each: give one');
  return named[0];
}

/** The error of a command given an id no endpoint has. */
function noEndpoint(id: string): PdfRenderError {
  return new PdfRenderError('USAGE', `no webhook endpoint with id ${id}; see \`pdfrender webhooks list\``);
}

/** "3 events", "1 delivery". */
function plural(count: number, noun: 'event' | 'delivery'): string {
  return `${count} ${count === 1 ? noun : noun === 'event' ? 'events' : 'deliveries'}`;
}

/** What enabling an endpoint did, truthfully. */
function enabledLine({ wasDisabled, released }: Enabled): string {
  const sent =
    released === 0
      ? 'it held no events'
      : `${plural(released, 'event')} it held queued, to be sent in the order they happened`;
  return `${wasDisabled ? 'enabled again' : 'was already active'}; ${sent}`;
}

/** The line `redeliver` prints; throws (exit 2) when it queued nothing, saying why. */
function redeliveryReport(jobId: string, result: Redelivery): string {
  if (result.outcome === 'no-such-job')
    throw new PdfRenderError(
      'USAGE',
      `no job ${jobId} (finished jobs are kept for --retention); see \`pdfrender webhooks deliveries\``,
    );
  if (result.outcome === 'unfinished')
    throw new PdfRenderError(
      'USAGE',
      `job ${jobId} has not finished (it is ${result.status}); its event is sent when it does`,
    );
  const notes = [
    ...(result.inFlight > 0 ? [`${plural(result.inFlight, 'delivery')} being sent right now left alone`] : []),
    ...(result.heldFor.length > 0
      ? [`held for disabled ${result.heldFor.join(', ')} (\`pdfrender webhooks enable <id>\` sends it)`]
      : []),
  ];
  if (result.queued === 0) {
    const why = result.active === 0 ? ['no webhook endpoint is active', ...notes] : notes;
    throw new PdfRenderError('USAGE', `nothing queued for ${jobId}: ${why.join('; ')}`);
  }
  const created = result.created > 0 ? ` (${result.created} to endpoints that never had it)` : '';
  return [`queued ${plural(result.queued, 'delivery')} of ${jobId} again${created}`, ...notes].join('; ');
}

/** The `key:` and `secret:` lines of an endpoint (those asked for), aligned with `id:`. */
function credentials(endpoint: WebhookEndpoint, which: Rotation = { key: true, secret: true }): string {
  return [
    ...(which.key ? [`key:    ${endpoint.key}`] : []),
    ...(which.secret ? [`secret: ${endpoint.secret}`] : []),
  ].join('\n');
}
