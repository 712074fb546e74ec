/**
 * The rival tools that are not npm packages (wkhtmltopdf, weasyprint): found on PATH, or installed
 * with apt-get when the bench runs as root on Debian (the issue asks the bench to install its optional
 * peers itself where it can); otherwise skipped with a note saying why.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const tools = {
  wkhtmltopdf: { apt: 'wkhtmltopdf', version: (out) => /wkhtmltopdf ([\d.]+\S*)/.exec(out)?.[1] },
  weasyprint: { apt: 'weasyprint', version: (out) => /version ([\d.]+)/i.exec(out)?.[1] },
};

/** The executable `name` on PATH, or undefined. */
export function which(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Run apt-get install; on failure refresh the package lists once (a fresh image often has none) and retry. */
function aptInstall(packages, log) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '-q', ...packages], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  log(`installing ${packages.join(', ')} with apt-get (--no-install skips this)`);
  let result = install();
  if (result.status !== 0) {
    spawnSync('apt-get', ['update', '-q'], { env, stdio: 'ignore' });
    result = install();
  }
  return result.status === 0 ? undefined : `apt-get install failed: ${String(result.stderr).trim().split('\n').pop()}`;
}

/**
 * Each optional tool as { path, version } when usable, or { note } saying why it is skipped.
 * `install: false` (--no-install) never changes the machine.
 */
export function optionalTools({ install, log }) {
  const missing = Object.entries(tools).filter(([name]) => !which(name));
  let installNote;
  if (missing.length > 0) {
    if (!install) installNote = 'not installed (--no-install)';
    else if (process.getuid?.() !== 0 || !existsSync('/etc/debian_version') || !which('apt-get'))
      installNote = 'not installed (install it to compare; the bench installs it only as root on Debian)';
    else
      installNote = aptInstall(
        missing.map(([, tool]) => tool.apt),
        log,
      );
  }
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => {
      const path = which(name);
      if (!path) return [name, { note: installNote ?? 'not installed' }];
      try {
        const out = execFileSync(path, ['--version'], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' },
        });
        return [name, { path, version: tool.version(out) ?? out.trim() }];
      } catch (error) {
        return [name, { note: `${path} does not run: ${String(error.message).split('\n')[0]}` }];
      }
    }),
  );
}
