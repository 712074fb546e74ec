/**
 * The sRGB ICC profile pdfrender builds for PDF/A's output intent: its tag table read here byte by
 * byte, and the profile opened and used by Little CMS (through Python's PIL.ImageCms, where the
 * machine has it), which compares it with its own built-in sRGB.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { srgbIccProfile } from '../src/engine/document/srgb-profile.js';

const profile = Buffer.from(srgbIccProfile());
const ascii = (at: number, length = 4) => profile.toString('latin1', at, at + length);
const fixed = (at: number) => profile.readInt32BE(at) / 65536;

/** Tag signature to [offset, size]. */
const tagTable = () => {
  const count = profile.readUInt32BE(128);
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => {
      const at = 132 + i * 12;
      return [ascii(at), [profile.readUInt32BE(at + 4), profile.readUInt32BE(at + 8)]];
    }),
  ) as Record<string, [number, number]>;
};

// The D50-adapted colorants of the sRGB IEC61966-2.1 profile HP and Microsoft published (and Little CMS builds).
const published = {
  rXYZ: [0.4361, 0.2225, 0.0139],
  gXYZ: [0.3851, 0.7169, 0.0971],
  bXYZ: [0.1431, 0.0606, 0.7141],
};

describe('the sRGB ICC profile', () => {
  it('has a v2 display-class RGB header with the XYZ connection space, D50 and its own size', () => {
    expect(profile.readUInt32BE(0)).toBe(profile.byteLength);
    expect(profile.readUInt8(8)).toBe(2);
    expect(ascii(12)).toBe('mntr');
    expect(ascii(16)).toBe('RGB ');
    expect(ascii(20)).toBe('XYZ ');
    expect(ascii(36)).toBe('acsp');
    expect([fixed(68), fixed(72), fixed(76)].map((v) => v.toFixed(4))).toEqual(['0.9642', '1.0000', '0.8249']);
  });

  it('holds the tags a matrix/TRC display profile needs, each inside the file, 4-byte aligned', () => {
    const tags = tagTable();
    expect(Object.keys(tags).sort()).toEqual(
      ['bTRC', 'bXYZ', 'cprt', 'desc', 'gTRC', 'gXYZ', 'rTRC', 'rXYZ', 'wtpt'].sort(),
    );
    for (const [signature, [offset, size]] of Object.entries(tags)) {
      expect(offset % 4, signature).toBe(0);
      expect(offset + size, signature).toBeLessThanOrEqual(profile.byteLength);
    }
    expect(ascii(tags.desc![0])).toBe('desc');
    expect(ascii(tags.rTRC![0])).toBe('curv');
  });

  it('has the published sRGB colorants, adapted to D50, summing to the D50 white', () => {
    const tags = tagTable();
    for (const [signature, expected] of Object.entries(published)) {
      const at = tags[signature]![0];
      expect(ascii(at)).toBe('XYZ ');
      const got = [fixed(at + 8), fixed(at + 12), fixed(at + 16)];
      got.forEach((value, i) => expect(value, `${signature}[${i}]`).toBeCloseTo(expected[i]!, 3));
    }
  });

  it('has the sRGB tone curve: linear near black, 0.2140 at mid grey, 1 at white', () => {
    const [at] = tagTable().rTRC!;
    const count = profile.readUInt32BE(at + 8);
    const point = (i: number) => profile.readUInt16BE(at + 12 + i * 2) / 65535;
    expect(count).toBeGreaterThanOrEqual(256);
    expect(point(0)).toBe(0);
    expect(point(count - 1)).toBe(1);
    // 128/255 decodes to 0.2158; the curve's sample nearest 0.5 encoded gives 0.2140.
    expect(point(Math.round((count - 1) / 2))).toBeCloseTo(0.214, 2);
    expect(point(1)).toBeCloseTo(1 / (count - 1) / 12.92, 5);
  });

  const python = '/usr/bin/python3';
  const withLcms =
    existsSync(python) &&
    (() => {
      try {
        execFileSync(python, ['-c', 'from PIL import ImageCms'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    })();

  it.runIf(withLcms)('opens in Little CMS and maps colours as its own sRGB does', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pdfrender-icc-')), 'srgb.icc');
    writeFileSync(file, profile);
    const script = `
import json, sys
from PIL import ImageCms, Image
ours = ImageCms.ImageCmsProfile(sys.argv[1])
lab = ImageCms.createProfile('LAB', 5000)
colours = [(255,0,0),(0,255,0),(0,0,255),(12,100,200),(128,128,128),(250,240,10)]
image = Image.new('RGB', (len(colours), 1)); image.putdata(colours)
def to_lab(profile):
    return list(ImageCms.applyTransform(image, ImageCms.buildTransform(profile, lab, 'RGB', 'LAB')).getdata())
print(json.dumps({'class': ours.profile.device_class, 'space': ours.profile.xcolor_space,
  'ours': to_lab(ours), 'theirs': to_lab(ImageCms.createProfile('sRGB'))}))
`;
    const result = JSON.parse(execFileSync(python, ['-c', script, file], { encoding: 'utf8' })) as {
      class: string;
      space: string;
      ours: number[][];
      theirs: number[][];
    };
    expect(result.class).toBe('mntr');
    expect(result.space.trim()).toBe('RGB');
    // 8-bit Lab: within 2 steps of Little CMS's own sRGB in every channel.
    result.ours.forEach((lab, i) =>
      lab.forEach((value, channel) => expect(Math.abs(value - result.theirs[i]![channel]!)).toBeLessThanOrEqual(2)),
    );
  });
});
