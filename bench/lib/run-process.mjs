/**
 * Runs one whole-process case: start the command, time it from spawn to exit, and sample the peak
 * summed RSS of its process tree meanwhile. A case that exits non-zero throws with its stderr, so
 * a broken tool is reported instead of timed.
 */
import { spawn } from 'node:child_process';
import { startPeakSampler } from './process-tree.mjs';

/** Run `command args` to completion; resolves { ms, peakRssKb, stdout }. */
export function runProcess(command, args, { cwd, env, timeoutMs = 600_000 } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd,
      env: env ? { ...process.env, ...env } : process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const sampler = startPeakSampler(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      sampler.stop();
      reject(error);
    });
    child.on('close', (code, signal) => {
      const ms = performance.now() - started;
      clearTimeout(timer);
      const peakRssKb = sampler.stop();
      if (code === 0) resolve({ ms, peakRssKb, stdout });
      else
        reject(
          new Error(
            `${command} ${args.slice(0, 3).join(' ')} ... exited ${code ?? signal}: ${stderr.trim().split('\n').slice(-3).join(' / ')}`,
          ),
        );
    });
  });
}
