/**
 * POST /api/pdfs/render-sync: validate, render now through the shared engine, keep the file for
 * download, and answer with its URL (or, when the caller prefers application/pdf, the PDF itself).
 * POST /api/pdfs/render-sync.pdf is the same render answering the PDF whatever Accept says, so a
 * client generated from the OpenAPI document gets one answer type per operation.
 */
import type { Hono } from 'hono';
import type { z } from 'zod';
import type { renderSyncAnswer } from '../api/api-answers.js';
import { fileUrlPath } from '../api/api-paths.js';
import { publicReport } from '../../engine/network-report.js';
import { logReportDetail } from '../../event-log.js';
import { parseRenderRequest } from '../../request.js';
import { prefersPdf } from './accept.js';
import type { AppDeps } from '../deps.js';
import { setNetworkHeaders } from './network-headers.js';
import { setReportHeader } from './report-header.js';
import { absoluteUrl } from '../public-url.js';
import { rateLimit } from '../edge/rate-limit.js';
import { callerKey, keyOf } from '../edge/caller.js';
import { noOwner } from '../../store/owners.js';
import { readBody, unknownFieldsRule } from './read-body.js';
import { setWarningsHeader } from './warnings-header.js';
import { requestWhere } from '../edge/request-id.js';

/** The paths of render-sync: negotiated, and the PDF itself. */
export const renderSyncPaths = ['/api/pdfs/render-sync', '/api/pdfs/render-sync.pdf'] as const;

/** Mount the routes on `app`. */
export function renderSyncRoute(app: Hono<{ Variables: { apiKey: string | undefined } }>, deps: AppDeps): void {
  for (const path of renderSyncPaths)
    app.post(path, rateLimit(deps), async (c) => {
      const ignored: string[] = [];
      const request = parseRenderRequest(await readBody(c), unknownFieldsRule(deps.config, ignored));
      // Pages are shared fairly between callers (page-pool.ts). The request's assets, if any, are
      // its document's folder while it renders (the engine's doing).
      const result = await deps.engine.render(request, { signal: c.req.raw.signal, caller: callerKey(c, deps.config) });
      setWarningsHeader(c, [...ignored, ...result.warnings]);
      logReportDetail(deps.events, result.network, requestWhere(c));
      const network = publicReport(result.network);
      setNetworkHeaders(c, network);
      const file = await deps.files.save(
        result.pdf,
        result.pages,
        deps.clock.now(),
        deps.config.retention,
        keyOf(c) ?? noOwner,
      );
      // The file URL promises a download: not from a data dir that was deleted or replaced.
      await deps.storage.confirm();
      const fileUrl = absoluteUrl(c, deps, fileUrlPath(file.id));
      if (path.endsWith('.pdf') || prefersPdf(c.req.header('accept'))) {
        c.header('Content-Type', 'application/pdf');
        c.header('Content-Disposition', `inline; filename="${file.id}.pdf"`);
        c.header('Content-Location', fileUrl);
        setReportHeader(c, result.report);
        return c.body(result.pdf as Uint8Array<ArrayBuffer>, 200);
      }
      return c.json(
        {
          outcome: 'SUCCESS',
          fileUrl,
          pages: result.pages,
          bytes: result.bytes,
          blocked: network.blocked,
          failed: network.failed,
          report: result.report,
        } satisfies z.infer<typeof renderSyncAnswer>,
        200,
      );
    });
}
