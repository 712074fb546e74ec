/** pdfrender's public API: the request schema, the render engine, browser discovery, errors. */
export {
  parseRenderRequest,
  renderRequestSchema,
  renderRequestFields,
  type RenderRequest,
  type RenderRequestInput,
} from './request.js';
export { parseLength, unitsPerInch, type LengthUnit } from './length.js';
export {
  createEngine,
  defaultTimeoutMs,
  type Engine,
  type EngineOptions,
  type RenderOptions,
  type RenderResult,
} from './engine/engine.js';
export { renderFile, type RenderFileOptions } from './engine/render-file.js';
export type { TemplateUrls } from './engine/prepare-templates.js';
export { findBrowser, requireBrowser, type FoundBrowser } from './engine/browser/find-browser.js';
export {
  defaultFetcher,
  type FetchBudget,
  type ResourceFetcher,
  type FetchedResource,
} from './engine/templates/template-fetch.js';
export { PdfRenderError, isPdfRenderError, type ErrorCode, type FieldErrors } from './errors.js';
export { publicOnly, type NetworkPolicy } from './network/policy.js';
export type { FileAccess } from './engine/file-access.js';
