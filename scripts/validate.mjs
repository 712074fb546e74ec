#!/usr/bin/env node
/**
 * `npm run validate -- file.pdf [--flavour 3b]`: runs veraPDF, the PDF Association's open PDF/A and
 * PDF/UA validator, on a PDF, with the flavour the PDF claims in its XMP (pdfaid:part and
 * conformance: 3b; pdfuaid:part: ua1; one run each where it claims both), or the --flavour given
 * (repeatable). veraPDF's report is printed as it is, and the script exits with its status (the
 * first that is not 0). pdfrender does not run veraPDF itself: it is a Java application that these
 * machines do not have; where it is not installed this says so, and how to install it, and exits 3.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { PDFDocument, PDFName, PDFRawStream, decodePDFRawStream } from '@cantoo/pdf-lib';

const usage = 'usage: npm run validate -- file.pdf [--flavour 1b|2b|3b|2u|3u|2a|3a|ua1|ua2 ...]';

/** The file and the flavours asked for on the command line. */
function parseArguments(args) {
  const files = [];
  const flavours = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--flavour' || arg === '--flavor') flavours.push(args[(i += 1)]);
    else if (arg.startsWith('--flavour=')) flavours.push(arg.slice('--flavour='.length));
    else if (arg === '-h' || arg === '--help') return { help: true };
    else files.push(arg);
  }
  if (files.length !== 1 || flavours.some((flavour) => !/^(1[ab]|[23][abu]|4[fe]?|ua[12])$/.test(flavour ?? '')))
    return { problem: usage };
  return { file: files[0], flavours };
}

/** veraPDF's command: $VERAPDF, or `verapdf` on the PATH; undefined where neither is there. */
function findVerapdf() {
  if (process.env.VERAPDF) return process.env.VERAPDF;
  for (const folder of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(folder, 'verapdf');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/** The flavours the PDF's own XMP claims (catalog /Metadata), read as veraPDF would name them. */
async function claimedFlavours(file) {
  const document = await PDFDocument.load(readFileSync(file), { ignoreEncryption: true, updateMetadata: false });
  const stream = document.catalog.lookup(PDFName.of('Metadata'));
  if (!stream) return [];
  const bytes = stream instanceof PDFRawStream ? decodePDFRawStream(stream).decode() : stream.getContents();
  const xmp = Buffer.from(bytes).toString('utf8');
  // Element form (<pdfaid:part>3</pdfaid:part>) or attribute form (pdfaid:part="3").
  const property = (name) => new RegExp(`${name}(?:>\\s*|\\s*=\\s*["'])([^<"']+)`).exec(xmp)?.[1]?.trim();
  const flavours = [];
  const part = property('pdfaid:part');
  if (part) flavours.push(`${part}${(property('pdfaid:conformance') ?? 'b').toLowerCase()}`);
  const ua = property('pdfuaid:part');
  if (ua) flavours.push(`ua${ua}`);
  return flavours;
}

const parsed = parseArguments(process.argv.slice(2));
if (parsed.help) {
  console.log(usage);
  process.exit(0);
}
if (parsed.problem) {
  console.error(parsed.problem);
  process.exit(2);
}
const verapdf = findVerapdf();
if (!verapdf) {
  console.error(
    [
      'validate: veraPDF is not installed (no verapdf on the PATH, and VERAPDF is not set), so nothing was validated.',
      'Install it from https://verapdf.org/software/ (a Java application; it needs Java 11 or later), then put',
      'the folder holding its verapdf script on the PATH, or run: VERAPDF=/path/to/verapdf npm run validate -- file.pdf',
    ].join('\n'),
  );
  process.exit(3);
}
let flavours = parsed.flavours;
if (flavours.length === 0) {
  try {
    flavours = await claimedFlavours(parsed.file);
  } catch (error) {
    console.error(`validate: cannot read ${parsed.file} as a PDF: ${error.message}`);
    process.exit(2);
  }
  if (flavours.length === 0) {
    console.error(
      `validate: ${parsed.file} claims no PDF/A or PDF/UA conformance in its XMP metadata; give one with --flavour (such as 3b or ua1)`,
    );
    process.exit(2);
  }
}
let status = 0;
for (const flavour of flavours) {
  console.error(`validate: ${verapdf} --flavour ${flavour} ${parsed.file}`);
  const run = spawnSync(verapdf, ['--flavour', flavour, parsed.file], { stdio: 'inherit' });
  if (run.error) {
    console.error(`validate: could not run ${verapdf}: ${run.error.message}`);
    process.exit(3);
  }
  if (status === 0) status = run.status ?? 1;
}
process.exit(status);
