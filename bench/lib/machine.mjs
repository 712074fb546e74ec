/**
 * What the figures were measured on, written beside them so runs on different machines (or
 * Chromium versions) are not compared as if they were alike.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';

/** The first line a command prints, or undefined when it fails. */
function firstLine(command, args, cwd) {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim()
      .split('\n')[0];
  } catch {
    return undefined;
  }
}

/** Machine, software versions and the commit measured. */
export function machineInfo({ root, chromiumPath, tools }) {
  const pkg = (name) => JSON.parse(readFileSync(`${root}/node_modules/${name}/package.json`, 'utf8')).version;
  const osRelease = /^PRETTY_NAME="?([^"\n]*)/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
  const dirty = firstLine('git', ['status', '--porcelain', '--untracked-files=no'], root);
  return {
    cores: availableParallelism(),
    cpu: cpus()[0]?.model,
    memoryGb: Number((totalmem() / 2 ** 30).toFixed(1)),
    loadAverageAtStart: loadavg().map((n) => Number(n.toFixed(2))),
    os: `${osRelease ?? 'unknown'}, Linux ${release()}`,
    node: process.version,
    chromium: firstLine(chromiumPath, ['--version']),
    chromiumPath,
    puppeteerCore: pkg('puppeteer-core'),
    autocannon: pkg('autocannon'),
    pdfrender: JSON.parse(readFileSync(`${root}/package.json`, 'utf8')).version,
    commit: `${firstLine('git', ['rev-parse', '--short', 'HEAD'], root) ?? 'unknown'}${dirty ? ' (uncommitted changes)' : ''}`,
    wkhtmltopdf: tools.wkhtmltopdf.version ?? tools.wkhtmltopdf.note,
    weasyprint: tools.weasyprint.version ?? tools.weasyprint.note,
  };
}
