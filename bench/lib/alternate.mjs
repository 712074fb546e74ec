/**
 * Runs cases in turn, A B C A B C ..., so a slow spell on a shared machine lands on every case
 * rather than on whichever ran during it. A case that fails is reported with its error and left
 * out of later rounds; the others go on.
 */

/**
 * `cases` maps a name to an async function (round) => { ms, peakRssKb, ... }, or to { run, rounds }
 * for a case too slow to repeat every round (it runs in the first `rounds` rounds only). Resolves to
 * { [name]: { runs: [result...], error? } }.
 */
export async function alternate(cases, rounds, log) {
  const results = Object.fromEntries(Object.keys(cases).map((name) => [name, { runs: [] }]));
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, spec] of Object.entries(cases)) {
      const { run, rounds: own = rounds } = typeof spec === 'function' ? { run: spec } : spec;
      if (results[name].error || round >= own) continue;
      try {
        const result = await run(round);
        results[name].runs.push(result);
        log(`  ${name}, round ${round + 1}/${rounds}: ${(result.ms / 1000).toFixed(2)} s`);
      } catch (error) {
        results[name].error = String(error.message ?? error);
        log(`  ${name} failed: ${results[name].error}`);
      }
    }
  }
  return results;
}
