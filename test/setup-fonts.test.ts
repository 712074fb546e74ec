/** What `pdfrender setup` says about fonts, from what fontconfig answers (setup-fonts.ts; issue 28 §1). */
import { describe, expect, it } from 'vitest';
import { fontScripts, fontsLine, packagesFor, uncoveredScripts } from '../src/cli/setup-fonts.js';

/** A fontconfig that has a font for the patterns in `covered` only. */
const fontconfig = (covered: string[]) => async (command: string, args: string[]) => {
  expect(command).toBe('fc-list');
  if (args[0] === '--version') return 'fontconfig version 2.14.1\n';
  return covered.includes(args[0]!) ? 'Noto Sans\n' : '';
};

describe('fonts for every script', () => {
  it('names the scripts no font covers, and the Debian packages that bring them, each once', async () => {
    const uncovered = await uncoveredScripts(fontconfig([':lang=en', ':lang=el', ':lang=ru']));
    expect(uncovered!.map((entry) => entry.script)).toContain('Japanese');
    expect(uncovered!.map((entry) => entry.script)).not.toContain('Greek');
    expect(packagesFor(uncovered!)).toEqual(['fonts-noto-core', 'fonts-noto-cjk', 'fonts-noto-color-emoji']);
    const line = fontsLine(uncovered);
    expect(line).toMatch(/^fonts: these will render as empty boxes: Arabic, Hebrew, Devanagari/);
    expect(line).toContain('sudo apt-get install fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji');
  });

  it('says every script is covered when fontconfig has a font for each, and says so when fontconfig is missing', async () => {
    expect(fontsLine(await uncoveredScripts(fontconfig(fontScripts.map((entry) => entry.pattern))))).toMatch(
      /^fonts: every script covered \(Latin, .*colour emoji\)$/,
    );
    expect(await uncoveredScripts(async () => null)).toBeNull();
    expect(fontsLine(null)).toContain('fontconfig (fc-list) is not installed');
  });
});
