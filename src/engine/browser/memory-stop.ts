/**
 * What a render stopped by the memory limit is told (render-memory.ts): the document's own fault
 * when it alone needed the memory, else a 503 to try again, for the memory other documents held.
 */
import { PdfRenderError } from '../../errors.js';

/** One renderer stopped for memory: its pid, its size, the sum of all, the limit, and whether it is to blame alone. */
export interface MemoryStop {
  pid: number;
  rss: number;
  total: number;
  limit: number;
  alone: boolean;
  at: number;
}

/** The error a render stopped for memory fails with: the document's fault alone, else 503 to try again. */
export function memoryStopError(stop: MemoryStop, setting: string): PdfRenderError {
  const limit = `the limit is ${setting} ${sizeSetting(stop.limit)}`;
  if (stop.alone)
    return new PdfRenderError(
      'RENDER_PDF_FAILED',
      `the document needed more memory than the limit allows to lay out and print (stopped at ${size(stop.rss)}; ${limit}, for the documents rendering at once together): split long tables into several, or raise the limit`,
      { documentFault: true },
    );
  const refusal = new PdfRenderError(
    'BROWSER_BUSY',
    `other large documents were using the memory: the documents rendering together needed ${size(stop.total)}, past ${size(stop.limit)} (${limit}); this one, the largest at ${size(stop.rss)}, was stopped; try again shortly`,
    { retryAfter: 10 },
  );
  refusals.add(refusal);
  return refusal;
}

/** The refusals memoryStopError made: what RenderMemory.whenFree tries again. */
const refusals = new WeakSet<object>();

/** Whether `error` is a refusal for the memory other documents held (memoryStopError's 503). */
export const isMemoryRefusal = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && refusals.has(error);

/** A size as messages show it: "6.0 GB", "300 MB". */
export function size(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GB` : `${Math.round(bytes / 2 ** 20)} MB`;
}

// The limit as the setting would be written ("6GB", "300MB", bytes).
function sizeSetting(bytes: number): string {
  if (bytes % 2 ** 30 === 0) return `${bytes / 2 ** 30}GB`;
  if (bytes % 2 ** 20 === 0) return `${bytes / 2 ** 20}MB`;
  return String(bytes);
}
