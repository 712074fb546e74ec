/**
 * The engine as the server's routes and workers use it, counted: each render's time and outcome by
 * endpoint (a background render is an async job's), the renders in flight, and the URLs the network
 * policy refused. The engine itself knows nothing of metrics; the CLI renders through it bare.
 */
import type { Engine } from '../engine/engine.js';
import { reportOf } from '../engine/report/render-report.js';
import { callerError } from '../errors.js';
import type { Metrics, RenderEndpoint } from './metrics.js';

/** `engine` whose renders are counted into `metrics`. */
export function meteredEngine(engine: Engine, metrics: Metrics): Engine {
  const countBlocked = (issues: Array<{ code: string }>) => {
    for (const issue of issues) metrics.egressBlocked.inc({ code: issue.code });
  };
  return {
    ...engine,
    async render(request, options = {}) {
      const endpoint: RenderEndpoint = options.lane === 'background' ? 'async' : 'sync';
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      metrics.rendersInFlight.inc({ endpoint });
      try {
        const result = await engine.render(request, options);
        metrics.renderSeconds.observe({ endpoint, outcome: 'success' }, seconds());
        metrics.renders.inc({ endpoint, outcome: 'success', code: 'none' });
        countBlocked(result.network.blocked);
        return result;
      } catch (error) {
        // A caller that left (or a stop that cut the render) is no failure of the render: counted
        // apart, so an alert on failures does not fire for clients that hang up.
        const cancelled = options.signal?.aborted === true;
        const outcome = cancelled ? 'cancelled' : 'failure';
        metrics.renderSeconds.observe({ endpoint, outcome }, seconds());
        metrics.renders.inc({ endpoint, outcome, code: cancelled ? 'none' : callerError(error).code });
        // A render that failed on a blocked URL (failOn, --fail-on-blocked) is the one to count most.
        countBlocked(reportOf(error)?.resources.blocked ?? []);
        throw error;
      } finally {
        metrics.rendersInFlight.dec({ endpoint });
      }
    },
  };
}
