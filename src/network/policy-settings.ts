/**
 * The network-policy flags, shared by `pdfrender serve` and `pdfrender render` (each with its
 * PDFRENDER_* twin for serve), and how they become the engine's options. The two commands differ
 * only in the default: the server allows public addresses only, the CLI the whole network.
 */
import { z } from 'zod';
import { failOnField, problemKinds } from '../fail-on-rules.js';
import { booleanField } from '../fields.js';
import type { NetworkPolicy } from './policy.js';

/** A repeatable flag, or a comma list from the environment. */
export const listSetting = z
  .union([z.array(z.string()), z.string()])
  .transform((value) => (Array.isArray(value) ? value : value.split(',')).map((item) => item.trim()).filter(Boolean))
  .prefault([]);

/** The policy flags: flag syntax, environment twin, schema with help text. */
export const policySettings = {
  allowPrivateNetwork: {
    flag: '--allow-private-network',
    env: 'PDFRENDER_ALLOW_PRIVATE_NETWORK',
    schema: booleanField(
      'let documents reach loopback, private and link-local addresses (the server refuses them by default)',
    ),
  },
  allowHosts: {
    flag: '--allow-host <pattern>',
    env: 'PDFRENDER_ALLOW_HOSTS',
    schema: listSetting.describe(
      'a host documents may always reach, whatever its address ("intranet.local", "*.example.com"); repeat for several (env: a comma list)',
    ),
  },
  blockNetwork: {
    flag: '--block-network',
    env: 'PDFRENDER_BLOCK_NETWORK',
    schema: booleanField('documents fetch nothing over the network (hosts from --allow-host excepted)'),
  },
  disableJavascript: {
    flag: '--disable-javascript',
    env: 'PDFRENDER_DISABLE_JAVASCRIPT',
    schema: booleanField("do not run documents' JavaScript"),
  },
  failOnBlocked: {
    flag: '--fail-on-blocked',
    env: 'PDFRENDER_FAIL_ON_BLOCKED',
    schema: booleanField(
      'fail a render whose document asked for a blocked URL (by default the resource is left out and reported)',
    ),
  },
  failOn: {
    flag: '--fail-on <rules>',
    env: 'PDFRENDER_FAIL_ON',
    schema: failOnField
      .transform((rules) => rules ?? [])
      .describe(
        `fail a render whose preflight report holds these kinds of problem, separated by commas: ${problemKinds.join(', ')} (or missing-glyphs, resource-errors, script-errors); a request's own failOn replaces them (default none: problems are reported, not failed)`,
      ),
  },
};

type PolicyValues = { [K in keyof typeof policySettings]: z.output<(typeof policySettings)[K]['schema']> };

/** The engine options for these values; `networkDefault` is what applies without --allow-private-network or --block-network. */
export function engineNetworkOptions(values: PolicyValues, networkDefault: 'public' | 'all') {
  const network: NetworkPolicy['network'] = values.blockNetwork
    ? 'none'
    : values.allowPrivateNetwork
      ? 'all'
      : networkDefault;
  return {
    network: { network, allowHosts: values.allowHosts } satisfies NetworkPolicy,
    javascript: !values.disableJavascript,
    failOnBlocked: values.failOnBlocked,
    failOn: values.failOn,
    // Messages name the flags these options came from (the CLI and serve share them).
    settingNames: {
      maxPages: '--max-pages',
      maxRenderMemory: '--max-render-memory',
      javascript: '--disable-javascript',
      failOnBlocked: '--fail-on-blocked',
      failOn: '--fail-on',
    },
  };
}
