/**
 * The CPU time of a whole process tree, exactly, from a cgroup (v1 cpuacct, Linux, as root): every
 * process started inside it stays in it and is counted, including those that exit before anyone
 * reads them. /proc cannot give that: a process's cutime counts only the children it waited for;
 * pdfrender kills its Chromium's process group as it exits without waiting, and a sandboxed
 * renderer killed with its namespace's init is reaped by the kernel with its CPU time dropped
 * (measured: a subreaper that reaped the tree counted 0.78 s of a 100-page long table's 2.9 s).
 */
import { mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const mount = '/sys/fs/cgroup/cpuacct';
let made = 0;
/** The pids in `dir`'s cgroup now. */
const tasks = (dir) => readFileSync(join(dir, 'tasks'), 'utf8').split('\n').filter(Boolean).map(Number);

/** SIGKILL every process in `dir`'s cgroup; quiet for those already gone. */
function killAll(dir) {
  for (const pid of tasks(dir))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
}

// Cgroups not finished yet. A bench that exits early (an error in a case) takes their processes with
// it, so a large render never outlives it, and removes what it can (a cgroup whose processes are
// still dying stays, empty soon).
const open = new Set();
process.on('exit', () => {
  for (const dir of open)
    try {
      killAll(dir);
      rmdirSync(dir);
    } catch {
      // left for the system
    }
});

/**
 * A fresh cpuacct cgroup for one run, or undefined where none can be made (no cgroup v1 cpuacct, not root).
 * `wrap(command, args)` gives the command line that starts `command` inside it; `kill()` SIGKILLs every
 * process in it; `finish()` waits for them all to end (killing what is left after `graceMs`), removes the
 * cgroup and resolves to the CPU ms they used.
 */
export function cpuCgroup(graceMs = 10_000) {
  const dir = join(mount, `pdfrender-bench-${process.pid}-${made++}`);
  try {
    mkdirSync(dir);
  } catch {
    return undefined;
  }
  open.add(dir);
  const kill = () => killAll(dir);
  return {
    // The shell joins the cgroup and then becomes the command, so everything it starts is inside.
    wrap: (command, args) => [
      '/bin/sh',
      ['-c', `echo $$ > ${join(dir, 'cgroup.procs')} && exec "$@"`, 'sh', command, ...args],
    ],
    kill,
    async finish() {
      const deadline = performance.now() + graceMs;
      while (tasks(dir).length > 0) {
        if (performance.now() > deadline) kill();
        await delay(20);
      }
      const ms = Number(readFileSync(join(dir, 'cpuacct.usage'), 'utf8')) / 1e6;
      rmdirSync(dir);
      open.delete(dir);
      return ms;
    },
  };
}
