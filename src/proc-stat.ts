/**
 * The one reader of Linux's /proc/<pid>/stat: the process's state and its parent. The program name
 * (field 2) may hold spaces and parentheses, so the fields are counted from its last ')'.
 */

/** A process's state letter ('R', 'S', 'Z' for a zombie, ...) and parent pid, from the text of its stat file. */
export function parseProcStat(stat: string): { state: string; parent: number } {
  const [state = '', parent = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state, parent: Number(parent) };
}
