/**
 * Who Chromium runs as, and so whether its sandbox can be on. Chromium refuses its sandbox to root,
 * so a root pdfrender (CI, containers) launches it as an unprivileged user through setpriv
 * (util-linux): setpriv execs the browser, so the pid, its process group and the DevTools pipe
 * (fds 3 and 4) are those puppeteer started, and the group kill and browser record still apply.
 */
import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { isExecutable } from './find-browser.js';

/** The system user `pdfrender setup` creates for the browser; `nobody` stands in where there is none. */
export const browserUserName = 'pdfrender';
const fallbackUserName = 'nobody';

export interface BrowserUser {
  name: string;
  uid: number;
  gid: number;
}

/** How the browser is started: as ourselves, or as `user` through `setpriv`; `noSandbox` says why the sandbox is off. */
export interface LaunchIdentity {
  user?: BrowserUser;
  /** The setpriv binary, when `user` is set. */
  setpriv?: string;
  /** Why Chromium must run with --no-sandbox; unset while the sandbox is on. */
  noSandbox?: string;
}

/** How to run Chromium from a process with user id `uid` (undefined off POSIX). */
export function launchIdentity(
  uid: number | undefined = process.getuid?.(),
  env: NodeJS.ProcessEnv = process.env,
): LaunchIdentity {
  if (uid !== 0) return {};
  const user = findUser(browserUserName) ?? findUser(fallbackUserName);
  if (!user)
    return {
      noSandbox: `pdfrender runs as root and there is no user "${browserUserName}" or "${fallbackUserName}" to run Chromium as`,
    };
  const setpriv = findOnPath('setpriv', env);
  if (!setpriv)
    return {
      noSandbox: 'pdfrender runs as root and setpriv (util-linux) is not installed to run Chromium as another user',
    };
  const off = userNamespacesOff();
  return { user, setpriv, ...(off && { noSandbox: off }) };
}

/** Why the kernel gives unprivileged users no user namespaces (so Chromium has no sandbox), as its settings say; else undefined. */
function userNamespacesOff(): string | undefined {
  const settings = [
    ['user.max_user_namespaces', '/proc/sys/user/max_user_namespaces'],
    ['kernel.unprivileged_userns_clone', '/proc/sys/kernel/unprivileged_userns_clone'],
  ] as const;
  for (const [setting, file] of settings) {
    if (readSetting(file) === '0') return `${setting} is 0: the kernel gives unprivileged users no user namespaces`;
  }
  return undefined;
}

function readSetting(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined; // a kernel without the setting
  }
}

/** setpriv's arguments that run the command after them as `user`, with no supplementary groups. */
export function setprivArgs(user: BrowserUser): string[] {
  return [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--'];
}

/** One line for logs: is the sandbox on, and as whom does the browser run. */
export function describeSandbox(identity: LaunchIdentity): string {
  const as = identity.user ? `Chromium runs as user ${identity.user.name}` : 'Chromium runs as this user';
  if (!identity.noSandbox) return `browser sandbox on (${as})`;
  return `browser sandbox OFF (${as}): ${identity.noSandbox}`;
}

// A file lookup, not getent: a cold CLI start must not pay for a process. Users only NSS knows
// (LDAP) are not found, and the fallback applies.
function findUser(name: string): BrowserUser | undefined {
  let passwd: string;
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of passwd.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && /^\d+$/.test(uid ?? '') && /^\d+$/.test(gid ?? '') && Number(uid) !== 0)
      return { name, uid: Number(uid), gid: Number(gid) };
  }
  return undefined;
}

function findOnPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  return [...(env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin', '/bin']
    .map((dir) => join(dir, command))
    .find(isExecutable);
}
