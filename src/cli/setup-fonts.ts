/**
 * Fonts for the scripts people write invoices and letters in. Chromium draws a character no
 * installed font has as an empty box, and still writes the right text into the PDF, so nothing
 * fails: the fonts have to be there before the render. On Debian/Ubuntu as root `pdfrender setup`
 * installs Google's Noto families from the distribution (one design for every script, so a page
 * mixing scripts stays even; fonts-noto-core covers the alphabets, abjads and Indic scripts,
 * fonts-noto-cjk Chinese, Japanese and Korean, fonts-noto-color-emoji colour emoji: about 80 MB
 * to download). Elsewhere it says which scripts will render as boxes and what to install.
 */

/** A script, a language fontconfig knows it by, and the Debian package with a Noto font for it. */
interface FontScript {
  script: string;
  /** What `fc-list` is asked: a font for this language (or character, for emoji) must be installed. */
  pattern: string;
  debianPackage: string;
}

export const fontScripts: readonly FontScript[] = [
  { script: 'Latin', pattern: ':lang=en', debianPackage: 'fonts-noto-core' },
  { script: 'Greek', pattern: ':lang=el', debianPackage: 'fonts-noto-core' },
  { script: 'Cyrillic', pattern: ':lang=ru', debianPackage: 'fonts-noto-core' },
  { script: 'Arabic', pattern: ':lang=ar', debianPackage: 'fonts-noto-core' },
  { script: 'Hebrew', pattern: ':lang=he', debianPackage: 'fonts-noto-core' },
  { script: 'Devanagari', pattern: ':lang=hi', debianPackage: 'fonts-noto-core' },
  { script: 'Bengali', pattern: ':lang=bn', debianPackage: 'fonts-noto-core' },
  { script: 'Gurmukhi', pattern: ':lang=pa', debianPackage: 'fonts-noto-core' },
  { script: 'Gujarati', pattern: ':lang=gu', debianPackage: 'fonts-noto-core' },
  { script: 'Tamil', pattern: ':lang=ta', debianPackage: 'fonts-noto-core' },
  { script: 'Telugu', pattern: ':lang=te', debianPackage: 'fonts-noto-core' },
  { script: 'Kannada', pattern: ':lang=kn', debianPackage: 'fonts-noto-core' },
  { script: 'Malayalam', pattern: ':lang=ml', debianPackage: 'fonts-noto-core' },
  { script: 'Thai', pattern: ':lang=th', debianPackage: 'fonts-noto-core' },
  { script: 'Chinese (simplified)', pattern: ':lang=zh-cn', debianPackage: 'fonts-noto-cjk' },
  { script: 'Chinese (traditional)', pattern: ':lang=zh-tw', debianPackage: 'fonts-noto-cjk' },
  { script: 'Japanese', pattern: ':lang=ja', debianPackage: 'fonts-noto-cjk' },
  { script: 'Korean', pattern: ':lang=ko', debianPackage: 'fonts-noto-cjk' },
  // A font with colour glyphs for 😀 (U+1F600): a monochrome one would draw emoji in black.
  { script: 'colour emoji', pattern: ':charset=1f600:color=true', debianPackage: 'fonts-noto-color-emoji' },
];

/** Runs a command and answers its standard output, or null when it could not run or failed. */
export type RunForOutput = (command: string, args: string[]) => Promise<string | null>;

/** The scripts no installed font covers, as fontconfig answers; null when fontconfig is not there to ask. */
export async function uncoveredScripts(output: RunForOutput): Promise<FontScript[] | null> {
  if ((await output('fc-list', ['--version'])) === null) return null;
  const covered = await Promise.all(
    fontScripts.map(async (entry) => ((await output('fc-list', [entry.pattern, 'family'])) ?? '').trim() !== ''),
  );
  return fontScripts.filter((_, index) => !covered[index]);
}

/** The Debian packages that bring fonts for `scripts`, each once. */
export const packagesFor = (scripts: readonly FontScript[]): string[] => [
  ...new Set(scripts.map((entry) => entry.debianPackage)),
];

/** The line `setup` prints about fonts, from the scripts still uncovered (null: fontconfig could not be asked). */
export function fontsLine(uncovered: readonly FontScript[] | null): string {
  if (uncovered === null)
    return 'fonts: fontconfig (fc-list) is not installed, so which scripts have a font is not known; Chromium needs it';
  if (uncovered.length === 0)
    return `fonts: every script covered (${fontScripts.map((entry) => entry.script).join(', ')})`;
  return `fonts: these will render as empty boxes: ${uncovered.map((entry) => entry.script).join(', ')}; install ${packagesFor(uncovered).join(' ')} (\`sudo apt-get install ${packagesFor(uncovered).join(' ')}\`, or \`sudo npx pdfrender setup\`), or fonts of your own for them`;
}
