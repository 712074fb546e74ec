/**
 * The one reader of Linux's /proc/<pid>/stat: the process's state and its parent. The program name
 * (field 2) may hold spaces and parentheses, so the fields are counted from its last ')'. And the
 * one reader of a process's children.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The child processes of `pid` (started by any of its threads); none when it is gone or there is no /proc. */
export function childProcesses(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'latin1').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/**
 * A process's state letter ('R', 'S', 'Z' for a zombie, ...), parent pid and CPU time so far (user
 * plus system, in clock ticks: usually 100 a second, `getconf CLK_TCK`), from the text of its stat file.
 */
export function parseProcStat(stat: string): { state: string; parent: number; cpuTicks: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Counted from the state (field 3): utime and stime are fields 14 and 15.
  return {
    state: fields[0] ?? '',
    parent: Number(fields[1] ?? ''),
    cpuTicks: Number(fields[11] ?? 0) + Number(fields[12] ?? 0),
  };
}
