/** Types of warm-code-cache.mjs, for the test that runs it. */
export function warmCodeCache(
  cli: { runCli(argv: string[], io: object): Promise<number> },
  env: NodeJS.ProcessEnv,
): Promise<string | undefined>;
