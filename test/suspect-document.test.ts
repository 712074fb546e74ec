/**
 * The browser killed twice (issue 27 §3): a render in flight at the first kill is tried once more,
 * and those second tries run one at a time, so the document whose second try was in flight at the
 * second kill is the one to blame: it fails, saying so, and is not tried again, while another
 * caller's document that was in flight at the first kill still renders. Each kill here is a stopped
 * browser (SIGSTOP to its process group) found by the watchdog, as in hung-browser.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { renderRequestSchema } from '../src/request.js';
import { browsersOf, killLater, killLeftovers, stateOf } from './support/chromium-processes.js';
import { startGate } from './support/gate.js';
import { readPdf } from './support/pdf.js';
import { until } from './support/wait.js';
import { watchedEngine } from './support/watched-engine.js';

const { engine, warnings } = watchedEngine({ timeoutMs: 60_000, network: { network: 'all', allowHosts: [] } });

afterAll(async () => {
  await engine.close({ kill: true });
  killLeftovers();
});

/** The browser this test's engine runs now, other than `not` (the one just killed may linger a moment). */
async function browserNow(not?: number): Promise<number> {
  const pid = await until(
    () => [...browsersOf(process.pid).keys()].find((each) => each !== not && stateOf(each) !== 'T'),
    'a running browser',
  );
  killLater(pid, browsersOf(process.pid).get(pid));
  return pid;
}

function stop(pid: number): void {
  process.kill(-pid, 'SIGSTOP');
}

describe('a document in flight at two kills of the browser', () => {
  it('fails as the suspect and is not tried again; another document in flight at the first kill renders', async () => {
    const gate = await startGate();
    try {
      await engine.render(renderRequestSchema.parse({ htmlContent: '<p>warm</p>' }));
      const first = await browserNow();

      // The suspect waits on the gate, which never opens; the innocent document waits 3 s on its own.
      const suspect = engine.render(renderRequestSchema.parse({ htmlContent: gate.document() }));
      suspect.catch(() => undefined);
      const innocent = engine.render(renderRequestSchema.parse({ htmlContent: '<p>innocent</p>', waitDelay: 3_000 }));
      innocent.catch(() => undefined);
      await gate.reached(1);
      stop(first);

      // The suspect's second try on the next browser: stopped as well. Were second tries run together,
      // the innocent document's, 3 s long, would be in flight too.
      await gate.reached(2);
      stop(await browserNow(first));

      await expect(suspect).rejects.toThrow(/went away twice .* not tried again/);
      const rendered = await innocent;
      expect((await readPdf(rendered.pdf)).pages[0]!.text).toContain('innocent');
      expect(warnings.filter((warning) => /did not answer/.test(warning))).toHaveLength(2);
    } finally {
      gate.close();
    }
  }, 90_000);
});
