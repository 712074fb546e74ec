/**
 * `pdfrender serve`: its flags (from the config schema) and the hand-off to run-server.ts, which
 * is loaded only when the command runs, so that `pdfrender render` never pays for the server stack.
 */
import { Command, Option } from 'commander';
import { loadServeConfig, serveSettings } from '../../server/config.js';
import type { CliIO } from '../io.js';

/** Build the `serve` command. */
export function serveCommand(io: CliIO, version: string): Command {
  const command = new Command('serve').description('serve the HTTP API (RenderPDF.io compatible)');
  // Commander names an option after its flag (--api-key -> apiKey); the config is keyed by setting.
  const attributes: Record<string, string> = {};
  for (const [key, setting] of Object.entries(serveSettings)) {
    const option = new Option(setting.flag, `${setting.schema.description} [env ${setting.env}]`);
    // Repeatable flags collect every value.
    if (key === 'apiKeys' || key === 'allowHosts' || key === 'corsOrigins')
      option.argParser((value: string, previous: string[] = []) => [...previous, value]);
    command.addOption(option);
    // Defined after its flag, so that neither sets a default and the setting's own rule decides.
    if ('negation' in setting) command.addOption(new Option(`--no-${setting.flag.slice(2)}`, setting.negation));
    attributes[key] = option.attributeName();
  }
  return command.action(async (options: Record<string, unknown>) => {
    const flags = Object.fromEntries(Object.entries(attributes).map(([key, attribute]) => [key, options[attribute]]));
    const config = loadServeConfig(flags, io.env, io.cwd);
    const { runServer } = await import('./run-server.js');
    await runServer(io, config, version);
  });
}
