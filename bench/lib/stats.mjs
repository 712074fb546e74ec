/** The few statistics the bench reports. Medians, not means: one stall on a shared machine moves a mean a lot. */

/** The median of a list of numbers (the mean of the middle two for an even count); undefined for none. */
export function median(list) {
  if (list.length === 0) return undefined;
  const sorted = [...list].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The p-th percentile (0-100) by nearest rank, so it is always a latency that was observed. */
export function percentile(list, p) {
  if (list.length === 0) return undefined;
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** The item of `list` whose `key` is the median (the lower middle one of an even count), so every figure reported with it is from one run. */
export function medianBy(list, key) {
  return [...list].sort((a, b) => key(a) - key(b))[Math.floor((list.length - 1) / 2)];
}
