/**
 * An sRGB display profile (ICC v2, ICC.1:2001-04), the destination profile of a PDF/A file's
 * output intent, built here from IEC 61966-2-1's own numbers rather than shipped as a file: no ICC
 * file in Debian is licensed clearly enough to ship, and the profile is a few numbers: the sRGB
 * primaries and D65 white, Bradford-adapted to ICC's D50 connection space, and the sRGB tone curve.
 */

type Vector = [number, number, number];
type Matrix = [Vector, Vector, Vector];

// IEC 61966-2-1: the primaries' and the white point's chromaticities (x, y).
const primaries: [number, number][] = [
  [0.64, 0.33],
  [0.3, 0.6],
  [0.15, 0.06],
];
const d65: [number, number] = [0.3127, 0.329];
/** The ICC profile connection space's illuminant, D50, as the ICC specification gives it. */
const d50: Vector = [0.9642, 1, 0.8249];
// The Bradford cone response matrix, which ICC specifies for chromatic adaptation.
const bradford: Matrix = [
  [0.8951, 0.2664, -0.1614],
  [-0.7502, 1.7135, 0.0367],
  [0.0389, -0.0685, 1.0296],
];

const xyzOf = ([x, y]: [number, number]): Vector => [x / y, 1, (1 - x - y) / y];
const times = (m: Vector[], v: Vector): Vector => m.map(([a, b, c]) => a * v[0] + b * v[1] + c * v[2]) as Vector;
const columns = ([[a, b, c], [d, e, f], [g, h, i]]: Matrix): Matrix => [
  [a, d, g],
  [b, e, h],
  [c, f, i],
];
const product = (a: Matrix, b: Matrix): Matrix => {
  const bColumns = columns(b);
  return a.map((row) => bColumns.map((column) => times([row], column)[0]!)) as Matrix;
};

function inverse(m: Matrix): Matrix {
  const [[a, b, c], [d, e, f], [g, h, i]] = m;
  const det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
  return [
    [(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det],
    [(f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det],
    [(d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det],
  ];
}

/** The XYZ (D50) of the red, green and blue colorants: the columns of sRGB's RGB-to-XYZ matrix, adapted from D65. */
export function srgbColorants(): Matrix {
  const primaryColumns = columns(primaries.map(xyzOf) as Matrix);
  const white = xyzOf(d65);
  const scale = times(inverse(primaryColumns), white);
  const toXyz = primaryColumns.map((row) => row.map((value, j) => value * scale[j]!)) as Matrix;
  const from = times(bradford, white);
  const to = times(bradford, d50);
  const gain: Matrix = [
    [to[0] / from[0], 0, 0],
    [0, to[1] / from[1], 0],
    [0, 0, to[2] / from[2]],
  ];
  return columns(product(product(inverse(bradford), product(gain, bradford)), toXyz));
}

/** IEC 61966-2-1's decoding curve: encoded value to linear light, both 0 to 1. */
export const srgbToLinear = (value: number): number =>
  value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;

const curvePoints = 1024;

/** A tag's bytes, padded to a multiple of four as the ICC tag table wants its offsets. */
class TagWriter {
  private readonly parts: number[] = [];
  ascii(text: string): this {
    for (const char of text) this.parts.push(char.charCodeAt(0));
    return this;
  }
  u8(value: number): this {
    this.parts.push(value & 0xff);
    return this;
  }
  u16(value: number): this {
    return this.u8(value >>> 8).u8(value);
  }
  u32(value: number): this {
    return this.u16(value >>> 16).u16(value);
  }
  s15Fixed16(value: number): this {
    return this.u32(Math.round(value * 65536) >>> 0);
  }
  zeros(count: number): this {
    for (let i = 0; i < count; i += 1) this.parts.push(0);
    return this;
  }
  bytes(): Uint8Array {
    while (this.parts.length % 4 !== 0) this.parts.push(0);
    return Uint8Array.from(this.parts);
  }
}

const xyzTag = ([x, y, z]: Vector) =>
  new TagWriter().ascii('XYZ ').zeros(4).s15Fixed16(x).s15Fixed16(y).s15Fixed16(z).bytes();
const textTag = (text: string) => new TagWriter().ascii('text').zeros(4).ascii(text).u8(0).bytes();
// textDescriptionType: the ASCII text, then empty Unicode and ScriptCode parts (67 bytes of them).
const descriptionTag = (text: string) =>
  new TagWriter()
    .ascii('desc')
    .zeros(4)
    .u32(text.length + 1)
    .ascii(text)
    .u8(0)
    .zeros(8)
    .zeros(3)
    .zeros(67)
    .bytes();

function curveTag(): Uint8Array {
  const tag = new TagWriter().ascii('curv').zeros(4).u32(curvePoints);
  for (let i = 0; i < curvePoints; i += 1) tag.u16(Math.round(srgbToLinear(i / (curvePoints - 1)) * 65535));
  return tag.bytes();
}

let built: Uint8Array | undefined;

/** The profile's bytes (built once: about 2.6 KB). */
export function srgbIccProfile(): Uint8Array {
  if (built) return built;
  const [red, green, blue] = srgbColorants();
  const curve = curveTag();
  const tags: [string, Uint8Array][] = [
    ['desc', descriptionTag('sRGB IEC61966-2.1 (pdfrender)')],
    ['cprt', textTag('No copyright: built by pdfrender from the IEC 61966-2-1 parameters')],
    ['wtpt', xyzTag(d50)],
    ['rXYZ', xyzTag(red)],
    ['gXYZ', xyzTag(green)],
    ['bXYZ', xyzTag(blue)],
    // The three channels share one curve: the tag table may point several tags at one block.
    ['rTRC', curve],
    ['gTRC', curve],
    ['bTRC', curve],
  ];
  const tableEnd = 128 + 4 + tags.length * 12;
  const table = new TagWriter().u32(tags.length);
  const blocks: Uint8Array[] = [];
  const offsets = new Map<Uint8Array, number>();
  let offset = tableEnd;
  for (const [signature, data] of tags) {
    if (!offsets.has(data)) {
      offsets.set(data, offset);
      blocks.push(data);
      offset += data.byteLength;
    }
    table.ascii(signature).u32(offsets.get(data)!).u32(data.byteLength);
  }
  const size = offset;
  const header = new TagWriter()
    .u32(size)
    .zeros(4) // preferred CMM: none
    .u32(0x02100000) // version 2.1
    .ascii('mntrRGB XYZ ')
    .u16(2026)
    .u16(1)
    .u16(1)
    .zeros(6) // creation date: fixed, so the bytes are always the same
    .ascii('acsp')
    .zeros(4 + 4 + 4 + 4 + 8) // platform, flags, manufacturer, model, attributes
    .u32(0) // rendering intent: perceptual
    .s15Fixed16(d50[0])
    .s15Fixed16(d50[1])
    .s15Fixed16(d50[2])
    .zeros(4) // creator
    .zeros(44); // profile ID (v4 only) and reserved bytes
  built = new Uint8Array(size);
  built.set(header.bytes(), 0);
  built.set(table.bytes(), 128);
  let at = tableEnd;
  for (const block of blocks) {
    built.set(block, at);
    at += block.byteLength;
  }
  return built;
}
