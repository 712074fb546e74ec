/** Named paper sizes for `--format` and the playground, portrait, as lengths the request schema accepts. */
export const paperFormats = {
  Letter: { paperWidth: '8.5in', paperHeight: '11in' },
  Legal: { paperWidth: '8.5in', paperHeight: '14in' },
  Tabloid: { paperWidth: '11in', paperHeight: '17in' },
  A3: { paperWidth: '297mm', paperHeight: '420mm' },
  A4: { paperWidth: '210mm', paperHeight: '297mm' },
  A5: { paperWidth: '148mm', paperHeight: '210mm' },
} as const;

export type PaperFormat = keyof typeof paperFormats;

/** Look a format up by name, ignoring case ("a4", "letter"); undefined when unknown. */
export function findPaperFormat(name: string): (typeof paperFormats)[PaperFormat] | undefined {
  const key = Object.keys(paperFormats).find((format) => format.toLowerCase() === name.trim().toLowerCase());
  return key ? paperFormats[key as PaperFormat] : undefined;
}
