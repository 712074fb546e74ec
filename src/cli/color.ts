/**
 * Whether the CLI colours what it writes on stderr, by the conventions users expect: --no-color and
 * --color first, then FORCE_COLOR (as chalk reads it), then NO_COLOR (no-color.org: set and not
 * empty), then whether stderr is a terminal. chalk alone ignores NO_COLOR on a terminal, and reads
 * --color from process.argv, which commander refused.
 */
import { Chalk, chalkStderr, type ChalkInstance } from 'chalk';

type Level = 0 | 1 | 2 | 3;

/** The colour level for stderr; `flag` is --color (true), --no-color (false) or neither. */
export function colorLevel(flag: boolean | undefined, env: NodeJS.ProcessEnv, isTTY: boolean): Level {
  // What chalk found this terminal can show, at least basic colours when asked for.
  const terminal = Math.max(chalkStderr.level, 1) as Level;
  if (flag === false) return 0;
  if (flag === true) return terminal;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '0' || force === 'false') return 0;
    const level = Number.parseInt(force, 10);
    return force === '' || force === 'true' || Number.isNaN(level) ? 1 : (Math.min(Math.max(level, 1), 3) as Level);
  }
  if (env.NO_COLOR) return 0;
  // A terminal that says it shows no colour (TERM=dumb) gets none unless asked.
  return isTTY && env.TERM !== 'dumb' ? terminal : 0;
}

/** --color and --no-color as written in `argv`, for output made before commander has parsed it. */
export function colorFlag(argv: readonly string[]): boolean | undefined {
  const last = argv.filter((arg) => arg === '--color' || arg === '--no-color').pop();
  return last === undefined ? undefined : last === '--color';
}

/** A chalk that paints at `level`. */
export const painter = (level: Level): ChalkInstance => new Chalk({ level });
