/** A span of time as an operator reads it at a glance: its two largest units, "3 m 12 s", "2 h 5 m", "4 d 1 h", "1 h", "0 s". */
const units: [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/** `ms` in its largest whole unit and the next one when not zero ("3 m 12 s", "1 h"); under a second "0 s"; a negative span (a clock behind) counts as none. */
export function humanDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000)) * 1000;
  const first = units.findIndex(([, size]) => seconds >= size);
  if (first === -1) return '0 s';
  const [unit, size] = units[first]!;
  const next = units[first + 1];
  const rest = next ? Math.floor((seconds % size) / next[1]) : 0;
  return `${Math.floor(seconds / size)} ${unit}${rest > 0 ? ` ${rest} ${next![0]}` : ''}`;
}
