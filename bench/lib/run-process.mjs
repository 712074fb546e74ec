/**
 * Runs one whole-process case: start the command, time it from spawn to exit, and sample the peak
 * summed RSS of its process tree meanwhile. A case that exits non-zero throws with its stderr, so
 * a broken tool is reported instead of timed. With `treeCpu`, the command runs in a cgroup of its
 * own (cpu-cgroup.mjs), which gives the CPU time of its whole tree.
 */
import { spawn } from 'node:child_process';
import { cpuCgroup } from './cpu-cgroup.mjs';
import { startPeakSampler } from './process-tree.mjs';

/**
 * Run `command args` to completion; resolves { ms, peakRssKb, stdout } and, with `treeCpu` where a
 * cgroup can be made, cpuMs (every process of the tree, those that exited included). On `timeoutMs`,
 * or when the tree's summed RSS passes `maxRssKb`, the whole tree is killed (so a bench run cannot
 * take the machine down). A failure rejects with an Error whose `reason` is the tool's last stderr
 * lines (or the timeout) and which carries the ms, peakRssKb and cpuMs it got to, so a failed run
 * can be reported with what it used.
 */
export function runProcess(
  command,
  args,
  { cwd, env, timeoutMs = 600_000, treeCpu = false, maxRssKb = Infinity } = {},
) {
  const group = treeCpu ? cpuCgroup() : undefined;
  const [program, argv] = group ? group.wrap(command, args) : [command, args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(program, argv, {
      cwd,
      env: env ? { ...process.env, ...env } : process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let stopped;
    // The cgroup holds the whole tree (pdfrender's Chromium runs in a process group of its own).
    const stop = (why) => {
      stopped ??= why;
      if (group) group.kill();
      else child.kill('SIGKILL');
    };
    const sampler = startPeakSampler(child.pid, 50, (kb) => {
      if (kb > maxRssKb) stop(`killed by the bench at ${(kb / 2 ** 20).toFixed(1)} GB of RSS (its cap)`);
    });
    child.stdout.on('data', (chunk) => (stdout += chunk));
    // Only the end of stderr is kept: a tool that logs a line per page must not fill the bench's memory.
    child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-20_000)));
    const timer = setTimeout(() => stop(`timed out after ${timeoutMs / 1000} s (killed)`), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      sampler.stop();
      group?.finish().catch(() => {});
      reject(error);
    });
    child.on('close', async (code, signal) => {
      const ms = performance.now() - started;
      clearTimeout(timer);
      const peakRssKb = sampler.stop();
      const figures = { ms, peakRssKb, ...(group && { cpuMs: await group.finish() }) };
      if (code === 0 && !stopped) return resolve({ ...figures, stdout });
      const reason = stopped ?? `exited ${code ?? signal}: ${stderr.trim().split('\n').slice(-3).join(' / ')}`;
      reject(Object.assign(new Error(`${command} ${args.slice(0, 3).join(' ')} ... ${reason}`), { reason }, figures));
    });
  });
}
