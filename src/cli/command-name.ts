/** The command `argv` names: its first word that is not an option (pdfrender's global options take no value). */
export function commandName(argv: readonly string[]): string | undefined {
  return argv.find((arg) => !arg.startsWith('-'));
}
